/**
 * The prefix-reusing summarizer (`summaryMode: 'reuse-prefix'`): instead of quoting Rest inside a
 * new prompt, the summary request repeats the conversation's own request (model, system, tools,
 * messages) and adds one user message asking for the summary, so the provider's prompt cache
 * serves everything the agent loop's last request already sent.
 */
import { raceWithSignal } from '../../abort.js';
import { describeValue, InvalidMessageError, InvalidOptionError } from '../../errors.js';
import type {
  ConversationRequest,
  LlmClient,
  LlmSummarizeOptions,
  LlmUsage,
  Summarizer,
  SummarizerOptions,
} from '../../ports.js';
import type { Message } from '../../types.js';
import { computeSummaryMaxTokens, requirePositiveInteger, requireSummaryText } from './summarize-with-llm.js';
import { buildSummaryInstruction } from './summary-prompt.js';

/** How compaction asks for the summary. */
export type SummaryMode = 'prompt' | 'reuse-prefix';

/** Options of {@link createPrefixReusingSummarizer}. */
export interface CreatePrefixReusingSummarizerOptions {
  /** The request parameters the agent loop sends (its `model`, `system`, `tools`, ...), repeated exactly. */
  conversationRequest: ConversationRequest;
  /**
   * Upper bound of the reply, in tokens.
   * @default computeSummaryMaxTokens(maxWords): 3 tokens per word plus 256
   */
  maxTokens?: number | undefined;
  /** Called with the usage of each reply: how much of the input the prompt cache served. */
  onUsage?: ((usage: LlmUsage) => void) | undefined;
}

/**
 * Checks a {@link ConversationRequest} as given by the caller: `model` a non-empty string,
 * `system` a string or an array, `tools` an array. `name` is how the caller named it, for the
 * message (`conversationRequest`).
 *
 * @throws {@link InvalidOptionError} naming the field, what was expected and what was given.
 */
function assertConversationRequest(request: unknown, name: string): asserts request is ConversationRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new InvalidOptionError(
      `${name} must be an object { model, system?, tools? } (the request the agent loop sends), got ${describeValue(request)}`,
    );
  }
  const fields = request as Record<string, unknown>;
  if (typeof fields.model !== 'string' || fields.model.trim() === '') {
    throw new InvalidOptionError(
      `${name}.model must be a non-empty string (the conversation's model), got ${describeValue(fields.model)}`,
    );
  }
  if (fields.system !== undefined && typeof fields.system !== 'string' && !Array.isArray(fields.system)) {
    throw new InvalidOptionError(
      `${name}.system must be a string or an array of blocks, got ${describeValue(fields.system)}`,
    );
  }
  if (fields.tools !== undefined && !Array.isArray(fields.tools)) {
    throw new InvalidOptionError(`${name}.tools must be an array, got ${describeValue(fields.tools)}`);
  }
}

const SUMMARY_MODES: readonly SummaryMode[] = ['prompt', 'reuse-prefix'];

/**
 * The summary mode, resolved and checked: `conversationRequest` is present with
 * `'reuse-prefix'` (the request to repeat), absent with `'prompt'`.
 */
export interface ResolvedSummaryMode {
  /** The conversation's request, with `summaryMode: 'reuse-prefix'` only. */
  conversationRequest?: ConversationRequest;
}

/**
 * Resolves `summaryMode` (default `'prompt'`) and checks `conversationRequest`, which
 * `'reuse-prefix'` requires and `'prompt'` does not take.
 *
 * @throws {@link InvalidOptionError} naming the option, what was expected and what was given.
 */
export function resolveSummaryMode(options: {
  summaryMode?: unknown;
  conversationRequest?: unknown;
}): ResolvedSummaryMode {
  const summaryMode = options.summaryMode ?? 'prompt';
  if (!SUMMARY_MODES.includes(summaryMode as SummaryMode)) {
    throw new InvalidOptionError(`summaryMode must be "prompt" or "reuse-prefix", got ${describeValue(summaryMode)}`);
  }
  const { conversationRequest } = options;
  if (summaryMode === 'prompt') {
    if (conversationRequest !== undefined) {
      // a request given without the mode would silently pay the full price: say so
      throw new InvalidOptionError(
        `conversationRequest is used only with summaryMode: 'reuse-prefix', got summaryMode "prompt"`,
      );
    }
    return {};
  }
  if (conversationRequest === undefined) {
    throw new InvalidOptionError(
      `conversationRequest is required with summaryMode: 'reuse-prefix': pass the request your agent loop sends, { model, system?, tools? }`,
    );
  }
  assertConversationRequest(conversationRequest, 'conversationRequest');
  return { conversationRequest };
}

/**
 * Throws when `summaryMode: 'reuse-prefix'` (a `conversationRequest` resolved) meets a
 * summarizer that cannot resend the conversation: a custom `summarizer` (`'custom'`) or no LLM
 * at all (`'extractive'`). An LLM client without `summarizeConversation` is refused by
 * {@link createPrefixReusingSummarizer}. Called before anything is written.
 *
 * @throws {@link InvalidOptionError} naming `summaryMode` and what was configured instead.
 */
export function assertReusePrefixSource(
  conversationRequest: ConversationRequest | undefined,
  summarizerKind: string,
): void {
  if (conversationRequest === undefined || (summarizerKind !== 'custom' && summarizerKind !== 'extractive')) return;
  const configured =
    summarizerKind === 'custom' ? 'a custom summarizer is given' : 'no llmClient or ANTHROPIC_API_KEY is configured';
  throw new InvalidOptionError(
    `summaryMode 'reuse-prefix' needs an LLM client that can resend the conversation (createAnthropicLlmClient's, as llmClient, or ANTHROPIC_API_KEY), but ${configured}`,
  );
}

/**
 * Creates a {@link Summarizer} that asks for the summary with the conversation's own request:
 * `client.summarizeConversation` sends `conversationRequest` (model, system, tools, ...), the
 * messages to summarize as they are (with a prompt-cache breakpoint after the last one), then
 * one user message with the summary instructions ({@link buildSummaryInstruction}). When the
 * agent loop's previous request sent the same prefix, the provider bills it at the cache-read
 * rate. Nothing is cut or chunked: the messages are the ones the loop sent the same model, so
 * they fit its window (leave room for the instructions and the reply: compaction triggers
 * before the window is full).
 *
 * A blank reply rejects with a `SummarizerFailedError`; errors of the client propagate
 * unchanged. A message with the `system` role among the messages rejects with an
 * {@link InvalidMessageError}: the conversation's system prompt goes in
 * `conversationRequest.system`.
 *
 * @throws {@link InvalidOptionError} at creation when the client has no `summarizeConversation`
 * (the Anthropic client of this package has it), `conversationRequest` is malformed or
 * `maxTokens` is not a positive integer.
 *
 * @example
 * ```ts
 * const summarizer = createPrefixReusingSummarizer(await createAnthropicLlmClient(), {
 *   conversationRequest: { model: 'claude-sonnet-4-6', system, tools },
 * });
 * const summary = await summarizer.summarize(rest, { maxWords: 1200 });
 * ```
 */
export function createPrefixReusingSummarizer(
  client: LlmClient,
  options: CreatePrefixReusingSummarizerOptions,
): Summarizer {
  const summarizeConversation = client?.summarizeConversation;
  if (typeof summarizeConversation !== 'function') {
    throw new InvalidOptionError(
      `summaryMode 'reuse-prefix' needs an LLM client with summarizeConversation() (the Anthropic client has it), got ${describeValue(client)}`,
    );
  }
  const { conversationRequest, onUsage } = options;
  assertConversationRequest(conversationRequest, 'conversationRequest');
  if (options.maxTokens !== undefined) requirePositiveInteger('maxTokens', options.maxTokens);
  if (onUsage !== undefined && typeof onUsage !== 'function') {
    throw new InvalidOptionError(`onUsage must be a function, got ${describeValue(onUsage)}`);
  }

  return {
    async summarize(messages: readonly Message[], summarizeOptions: SummarizerOptions): Promise<string> {
      const { maxWords, signal } = summarizeOptions;
      requirePositiveInteger('maxWords', maxWords);
      signal?.throwIfAborted();
      const systemIndex = messages.findIndex((message) => message.role === 'system');
      if (systemIndex !== -1) {
        throw new InvalidMessageError(
          `messages[${systemIndex}].role`,
          `"system" cannot be sent as a message: summaryMode 'reuse-prefix' sends the messages as the conversation's own, so its system prompt belongs in conversationRequest.system`,
        );
      }
      const requestOptions: LlmSummarizeOptions = { maxTokens: options.maxTokens ?? computeSummaryMaxTokens(maxWords) };
      if (signal !== undefined) requestOptions.signal = signal;
      if (onUsage !== undefined) requestOptions.onUsage = onUsage;
      const request = { ...conversationRequest, messages, instruction: buildSummaryInstruction({ maxWords }) };
      // raced: a client that ignores the signal cannot hold the abort up
      const reply = await raceWithSignal(
        (async () => summarizeConversation.call(client, request, requestOptions))(),
        signal,
      );
      return requireSummaryText(
        reply,
        `model ${JSON.stringify(conversationRequest.model)}, the conversation's request`,
      );
    },
  };
}
