/**
 * Each format takes its SDK's own message type without a cast, and gives it back from
 * fromCanonical when that history is the original.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { BaseMessage } from '@langchain/core/messages';
import type { AgentInputItem } from '@openai/agents';
import type { ModelMessage } from 'ai';
import type { ModelMessage as ModelMessageV6 } from 'ai-v6';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { formats } from '../../../src/formats/index.js';
import {
  aiSdkHistory,
  aiSdkV6History,
  anthropicHistory,
  createLangchainHistory,
  openaiAgentsHistory,
  openaiChatHistory,
  openaiResponsesHistory,
} from './sdk-samples.js';

describe('SDK message types', () => {
  it('go in and come back out of each format without a cast', () => {
    expectTypeOf(
      formats.anthropic.fromCanonical(formats.anthropic.toCanonical(anthropicHistory), anthropicHistory),
    ).toEqualTypeOf<MessageParam[]>();
    expectTypeOf(
      formats.openaiChat.fromCanonical(formats.openaiChat.toCanonical(openaiChatHistory), openaiChatHistory),
    ).toEqualTypeOf<ChatCompletionMessageParam[]>();
    expectTypeOf(
      formats.openaiResponses.fromCanonical(
        formats.openaiResponses.toCanonical(openaiResponsesHistory),
        openaiResponsesHistory,
      ),
    ).toEqualTypeOf<ResponseInputItem[]>();
    expectTypeOf(
      formats.openaiAgents.fromCanonical(formats.openaiAgents.toCanonical(openaiAgentsHistory), openaiAgentsHistory),
    ).toEqualTypeOf<AgentInputItem[]>();
    expectTypeOf(formats.aiSdk.fromCanonical(formats.aiSdk.toCanonical(aiSdkHistory), aiSdkHistory)).toEqualTypeOf<
      ModelMessage[]
    >();
    expectTypeOf(formats.aiSdk.fromCanonical(formats.aiSdk.toCanonical(aiSdkV6History), aiSdkV6History)).toEqualTypeOf<
      ModelMessageV6[]
    >();
    const langchainHistory = createLangchainHistory();
    expectTypeOf(
      formats.langchain.fromCanonical(formats.langchain.toCanonical(langchainHistory), langchainHistory),
    ).toEqualTypeOf<BaseMessage[]>();
  });

  it('give canonical messages', () => {
    expectTypeOf(formats.aiSdk.toCanonical(aiSdkHistory)).toEqualTypeOf<Message[]>();
  });
});
