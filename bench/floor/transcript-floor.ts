/**
 * The floor of a bench transcript: its messages as token counts for `computeFloor`, each tool
 * result's saving as the tokens its reference line would take less, and an assistant message's
 * text over the manager's inline limit (half the window, in characters) as what its reference,
 * head and tail would take less (the manager lets such text age like a result), and with it the
 * string fields of its tool calls' inputs of at least the direct-offload threshold as what their
 * references take less (the manager offloads them with the batches); the summary
 * the size of the one every system of the bench gets (with the marker the manager puts before
 * it), priced with a cost model. See `cheapest-schedule.ts` for the schedules searched.
 */
import { countTokens } from '../../src/api/tokens.js';
import { countLeadingSystemMessages, findRequestTurns } from '../../src/cli/replay/request-turns.js';
import { COMPRESSED_CONVERSATION_PREFIX } from '../../src/core/compact/assemble.js';
import { priceInDollars, type CostModel } from '../../src/core/cost/cost-model.js';
import {
  CHARS_PER_WINDOW_TOKEN,
  DEFAULT_CUT,
  DEFAULT_CUT_SHARE,
  DEFAULT_MAX_INLINE_RESULT_SHARE,
} from '../../src/core/manage/manager-options.js';
import { appendPreview, buildBatchReference } from '../../src/core/offload/offload-reference.js';
import { DEFAULT_DIRECT_OFFLOAD_THRESHOLD } from '../../src/core/options/defaults.js';
import { isTextBlock, isToolResultBlock, isToolUseBlock, type Message } from '../../src/core/types.js';
import { SHARED_SUMMARY } from '../peers/shared-summary.js';
import type { PeerTranscript } from '../peers/transcripts.js';
import { computeFloor, type FloorInput } from './cheapest-schedule.js';

/** The floor of one transcript in one window. */
export interface TranscriptFloor {
  /** Cost with caching in US dollars, at the cost model's input price. */
  cost: number;
  /** Requests no schedule could fit in the window (their newest turn alone is larger). */
  requestsOverWindow: number;
  /** Requests whose cached prefix the cheapest schedule changed. */
  prefixChanges: number;
}

/** Tokens of the message a compaction leaves in place of what it replaces, and of the agent's resume message after it. */
const SUMMARY_TOKENS = countTokens([
  { role: 'user', content: `${COMPRESSED_CONVERSATION_PREFIX}${SHARED_SUMMARY}` },
  { role: 'user', content: 'Continue with the task.' },
]);

/** `text` as the manager leaves a large text it offloaded: its reference, then its head and tail. */
function referToText(text: string, window: number): string {
  const windowChars = window * CHARS_PER_WINDOW_TOKEN;
  const keptChars = Math.min(
    DEFAULT_CUT.headChars + DEFAULT_CUT.tailChars,
    Math.floor(windowChars * DEFAULT_CUT_SHARE),
  );
  const headChars = Math.min(DEFAULT_CUT.headChars, Math.floor(keptChars / 3));
  const reference = buildBatchReference('default/assistant-text-0000000000000000.md');
  return appendPreview(reference, text, { headChars, tailChars: keptChars - headChars });
}

/** `value` with every string of at least the direct-offload threshold replaced by a reference; `changed` says whether one was. */
function referToInputFields(value: unknown, changed: { any: boolean }): unknown {
  if (typeof value === 'string') {
    if (value.length < DEFAULT_DIRECT_OFFLOAD_THRESHOLD) return value;
    changed.any = true;
    return buildBatchReference('default/tool-input-toolu_0000000000000000-0000000000000000.md');
  }
  if (Array.isArray(value)) return value.map((item) => referToInputFields(item, changed));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, referToInputFields(item, changed)]));
  return value;
}

/**
 * An assistant `message` with each text over the inline limit and each large field of its tool
 * calls' inputs replaced as the manager does, or `undefined` when it has none.
 */
function referToAssistantParts(message: Message, window: number): Message | undefined {
  if (message.role !== 'assistant') return undefined;
  const limit = Math.floor(window * CHARS_PER_WINDOW_TOKEN * DEFAULT_MAX_INLINE_RESULT_SHARE);
  if (typeof message.content === 'string')
    return message.content.length > limit ? { ...message, content: referToText(message.content, window) } : undefined;
  const changed = { any: false };
  const content = message.content.map((block) => {
    if (isToolUseBlock(block)) return { ...block, input: referToInputFields(block.input, changed) };
    if (!isTextBlock(block) || block.text.length <= limit) return block;
    changed.any = true;
    return { ...block, text: referToText(block.text, window) };
  });
  return changed.any ? { ...message, content } : undefined;
}

/** `message` with its one tool result replaced by a reference line, or `undefined` when it is not a lone tool result. */
function referTo(message: Message): Message | undefined {
  if (message.role !== 'user' || !Array.isArray(message.content) || message.content.length !== 1) return undefined;
  const [block] = message.content;
  if (!isToolResultBlock(block)) return undefined;
  const reference = buildBatchReference(`default/tool-results/${block.tool_use_id}.txt`);
  return { role: 'user', content: [{ ...block, content: reference }] };
}

/** The token counts `computeFloor` works on, for `transcript` in a `window`-token window priced with `model`. */
export function buildFloorInput(transcript: PeerTranscript, window: number, model: CostModel): FloorInput {
  const messageTokens = transcript.messages.map((message) => countTokens([message]));
  const offloadSavings = transcript.messages.map((message, index) => {
    const reference = referTo(message) ?? referToAssistantParts(message, window);
    return reference === undefined ? 0 : Math.max(0, (messageTokens[index] as number) - countTokens([reference]));
  });
  return {
    messageTokens,
    offloadSavings,
    systemEnd: countLeadingSystemMessages(transcript.messages),
    turnEnds: findRequestTurns(transcript.messages),
    fixedTokens: transcript.toolDefinitionTokens,
    summaryTokens: SUMMARY_TOKENS,
    window,
    readRatio: model.readRatio,
    writeRatio: model.writeRatio,
  };
}

/** The floor of `transcript` in a `window`-token window, priced with `model`. */
export function priceFloor(transcript: PeerTranscript, window: number, model: CostModel): TranscriptFloor {
  const floor = computeFloor(buildFloorInput(transcript, window, model));
  return {
    cost: priceInDollars(model, floor.cost),
    requestsOverWindow: floor.requestsOverWindow,
    prefixChanges: floor.prefixChanges,
  };
}
