/**
 * What every system of the peer benchmark shares: one summary text, whoever asks for it (the
 * context manager's summarizer, LangChain's summarization model, the deepagents agent model
 * that its summarization middleware calls), and one token counter (the package's, o200k_base),
 * wherever a system lets its counter be chosen.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ModelProfile } from '@langchain/core/language_models/profile';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { countTokens } from '../../src/api/tokens.js';
import type { Summarizer } from '../../src/core/ports.js';
import { createLangchainFormat } from '../../src/messages.js';
import type { Message } from '../../src/core/types.js';
import { normalizeMessages } from './transcripts.js';

/**
 * The one summary every system gets, word for word: what a summary of a coding session says
 * without quoting any of it, so that no system keeps a fact through its summary that another
 * loses through its own.
 */
export const SHARED_SUMMARY = [
  'The user asked for a change to their project and the agent has been working on it.',
  'So far the agent read the files involved, ran the project commands and tests, looked at',
  'their output, and edited the code where the output pointed. Some commands failed before the',
  'edits and were run again after them. The work is not finished: continue from the most recent',
  'messages, check the latest command output, and carry on with the next step of the task.',
].join(' ');

/** LangChain messages to and from the canonical shape, fresh messages built with this `@langchain/core`. */
export const langchainFormat = createLangchainFormat({
  messageClasses: { AIMessage, HumanMessage, SystemMessage, ToolMessage },
});

/** LangChain messages as the benchmark counts them: canonical, in normal form. */
export function toCountedMessages(messages: readonly BaseMessage[]): Message[] {
  return normalizeMessages(langchainFormat.toCanonical(messages));
}

/** The package's token count of LangChain messages: LangChain's `tokenCounter` option takes it. */
export function countLangchainTokens(messages: readonly BaseMessage[]): number {
  return countTokens(toCountedMessages(messages));
}

/** The context manager's summarizer: the shared summary. */
export const sharedSummarizer: Summarizer = { summarize: () => Promise.resolve(SHARED_SUMMARY) };

/**
 * A LangChain chat model that answers every call with the shared summary. Its profile gives
 * the window as `maxInputTokens`, which is how LangChain and deepagents middlewares learn the
 * model's context size (their fraction triggers), and it counts tokens with the package's
 * counter (`contextEditingMiddleware`'s `tokenCountMethod: 'model'`).
 */
export class SharedSummaryChatModel extends BaseChatModel {
  readonly #maxInputTokens: number;

  constructor(maxInputTokens: number) {
    super({});
    this.#maxInputTokens = maxInputTokens;
  }

  override get profile(): ModelProfile {
    return { maxInputTokens: this.#maxInputTokens };
  }

  _llmType(): string {
    return 'shared-summary';
  }

  _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    return Promise.resolve({ generations: [{ text: SHARED_SUMMARY, message: new AIMessage(SHARED_SUMMARY) }] });
  }

  /** The package's count, in the shape OpenAI's LangChain models report it. */
  getNumTokensFromMessages(messages: BaseMessage[]): Promise<{ totalCount: number; countPerMessage: number[] }> {
    const countPerMessage = messages.map((message) => countLangchainTokens([message]));
    return Promise.resolve({ totalCount: countPerMessage.reduce((sum, count) => sum + count, 0), countPerMessage });
  }
}
