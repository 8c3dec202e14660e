/**
 * The AI SDK's `pruneMessages` in the peer benchmark, before every step, the way an agent
 * uses it in `prepareStep`: the SDK keeps the whole history and `prepareStep` returns the
 * pruned copy for that one step. `pruneMessages` prunes nothing by default (`toolCalls: []`,
 * `reasoning: 'none'`), so the settings are those of its reference page's example:
 * reasoning before the last message, tool calls and results before the last 2 messages.
 */
import { pruneMessages, type ModelMessage } from 'ai';
import type { Message } from '../../src/core/types.js';
import { formats, type AiSdkMessage } from '../../src/formats/index.js';
import type { PeerSystem } from './replay-system.js';
import { normalizeMessages } from './transcripts.js';

/**
 * The transcript as the AI SDK holds it: the results of one step in one `tool` message, as
 * the SDK writes them. `lengthBefore[i]` is the number of SDK messages made of the first `i`
 * canonical messages.
 */
function toStepMessages(messages: readonly Message[]): { history: AiSdkMessage[]; lengthBefore: number[] } {
  const converted = formats.aiSdk.fromCanonical(messages);
  if (converted.length !== messages.length)
    throw new Error(`the AI SDK form has ${converted.length} messages, not ${messages.length}`);
  const history: AiSdkMessage[] = [];
  const lengthBefore = [0];
  for (const message of converted) {
    const previous = history.at(-1);
    if (message.role === 'tool' && previous?.role === 'tool') {
      history[history.length - 1] = { ...previous, content: [...previous.content, ...message.content] } as AiSdkMessage;
    } else {
      history.push(message);
    }
    lengthBefore.push(history.length);
  }
  return { history, lengthBefore };
}

/** `pruneMessages` with the reference page's settings, before every request; no store. */
export const aiSdkSystem: PeerSystem = {
  name: 'AI SDK `pruneMessages` before every step',
  hasStore: false,
  open(transcript) {
    const { history, lengthBefore } = toStepMessages(transcript.messages);
    return Promise.resolve({
      prepareRequest(end: number) {
        const pruned = pruneMessages({
          messages: history.slice(0, lengthBefore[end]) as ModelMessage[],
          reasoning: 'before-last-message',
          toolCalls: 'before-last-2-messages',
          emptyMessages: 'remove',
        });
        return Promise.resolve(normalizeMessages(formats.aiSdk.toCanonical(pruned)));
      },
      readStore: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    });
  },
};
