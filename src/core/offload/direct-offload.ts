/**
 * Direct offload: the `tool_result` blocks of one message go to
 * `<outputDir>/<sessionId>/<tool_use_id>.md` before the LLM sees them, and the middleware that
 * applies it in an agent loop.
 */
import { countToolResultChars } from '../text/char-count.js';
import { NoToolResultError } from '../errors.js';
import type { ResolvedToolResultOffloaderOptions } from '../options/offload-options.js';
import { appendPreview, buildDirectReference, isOffloadReference, type ResolvedPreview } from './offload-reference.js';
import {
  callStore,
  copyMessageWithContent,
  runConcurrently,
  serializeToolResultContent,
  WRITE_CONCURRENCY,
} from './offload-files.js';
import type { ContentStore } from '../ports.js';
import { buildDirectFileName, planFileNames, toFileStem } from './offload-names.js';
import { assertSafePathSegment } from '../store/safe-path.js';
import { hasLoneSurrogate, toWellFormedText } from '../text/text.js';
import { mapToolNames } from '../messages/tool-names.js';
import { isToolResultBlock, type Message, type ToolResultBlock } from '../types.js';
import { assertMessage } from '../messages/validate-messages.js';

/** The result of a direct offload. */
export interface DirectOffloadResult {
  /**
   * The new message, a deep copy with each offloaded block's content replaced by
   * `[Tool result offloaded to file: <absolute path>]`. When nothing was written (every
   * `tool_result` already is a reference), the input message itself.
   */
  message: Message;
  /**
   * Characters freed: for each offloaded block, its original count minus the length of its
   * replacement string (negative for content shorter than the reference).
   */
  freedChars: number;
  /** Path of the first file written (absolute with the Node writer), or `null` when none was. */
  file: string | null;
  /** Paths of every file written, in block order. */
  files: string[];
  /**
   * Offloaded blocks whose text held lone surrogates (half of a UTF-16 pair, which no UTF-8
   * file can hold): each was written with U+FFFD in their place. Present only when there was
   * one, so the result keeps its usual shape otherwise.
   */
  repairedCount?: number;
}

/** Options of {@link executeDirectOffload}. */
export interface ExecuteDirectOffloadOptions {
  /** The preview that follows each reference, or `null`. */
  preview: ResolvedPreview | null;
  /** Which `tool_result` blocks to offload (the middleware's threshold); all by default. */
  select?: (block: ToolResultBlock, chars: number) => boolean;
}

/**
 * Offloads the `tool_result` blocks of `message` (every one, unless `select` says otherwise;
 * existing references are left as they are). All checks come before any write: the message's
 * shape (`INVALID_MESSAGE`), a message without `tool_result` (`NO_TOOL_RESULT`), the session
 * (`UNSAFE_PATH`). An id that cannot be a file name maps to one (`toFileStem`). The same id in
 * the same session overwrites its file; the same id twice in this one message gets
 * `<id>~1.md` for the second, a name no real id can have, so no content is lost.
 */
export async function executeDirectOffload(
  message: Message,
  sessionId: string,
  store: ContentStore,
  options: ExecuteDirectOffloadOptions,
): Promise<DirectOffloadResult> {
  assertMessage(message, 'message');
  assertSafePathSegment('sessionId', sessionId);
  const blocks = typeof message.content === 'string' ? [] : message.content;
  if (!blocks.some((block) => isToolResultBlock(block))) {
    const given = typeof message.content === 'string' ? 'a string' : `${blocks.length} block(s) without one`;
    throw new NoToolResultError(`message.content must hold at least one tool_result block, got ${given}`);
  }

  const chosen: Array<{ blockIndex: number; stem: string; content: string; chars: number }> = [];
  const reserved: string[] = [];
  let repairedCount = 0;
  blocks.forEach((block, blockIndex) => {
    if (!isToolResultBlock(block)) return;
    const stem = toFileStem(block.tool_use_id);
    reserved.push(stem);
    if (isOffloadReference(block.content)) return;
    const chars = countToolResultChars(block.content);
    if (options.select && !options.select(block, chars)) return;
    let content = serializeToolResultContent(block.content);
    // Written well-formed: what a UTF-8 file of it reads back as.
    if (hasLoneSurrogate(content)) {
      repairedCount += 1;
      content = toWellFormedText(content);
    }
    chosen.push({ blockIndex, stem, content, chars });
  });
  if (chosen.length === 0) return { message, freedChars: 0, file: null, files: [] };

  // A repeated id gets `<id>~1.md`: no real id holds `~`, so a later id can never overwrite it.
  const names = planFileNames(
    chosen.map((block) => block.stem),
    reserved,
    buildDirectFileName,
  );
  const keys = names.map((name) => `${sessionId}/${name}`);
  const paths = keys.map((key) => store.referenceFor(key));

  await runConcurrently(chosen.length, WRITE_CONCURRENCY, async (index) => {
    const key = keys[index]!;
    await callStore(store, key, () => store.put(key, chosen[index]!.content));
  });

  const replacements = new Map<number, string>();
  let freedChars = 0;
  chosen.forEach((block, index) => {
    const reference = appendPreview(buildDirectReference(paths[index]!), block.content, options.preview);
    replacements.set(block.blockIndex, reference);
    freedChars += block.chars - reference.length;
  });
  return {
    message: copyMessageWithContent(message, replacements),
    freedChars,
    file: paths[0]!,
    files: paths,
    ...(repairedCount > 0 ? { repairedCount } : {}),
  };
}

/**
 * The direct offload middleware of an agent loop: `(message, assistantMessage?) => Promise<Message>`.
 * Offloads the message's `tool_result` blocks at or above the threshold whose tool is not
 * excluded (names from `assistantMessage`'s `tool_use` blocks), and returns the message itself
 * when none qualifies, including a message with no `tool_result` at all.
 */
export type ToolResultOffloader = (message: Message, assistantMessage?: Message) => Promise<Message>;

/** Builds the middleware over a writer, with options already resolved. */
export function buildToolResultOffloader(
  store: ContentStore,
  options: ResolvedToolResultOffloaderOptions,
): ToolResultOffloader {
  return async (message, assistantMessage) => {
    assertMessage(message, 'message');
    if (assistantMessage !== undefined) assertMessage(assistantMessage, 'assistantMessage');
    const toolNames = assistantMessage === undefined ? new Map<string, string>() : mapToolNames([assistantMessage]);
    const select = (block: ToolResultBlock, chars: number): boolean => {
      if (chars < options.threshold) return false;
      const toolName = toolNames.get(block.tool_use_id);
      return toolName === undefined || !options.excludeTools.has(toolName);
    };
    const qualifies =
      typeof message.content !== 'string' &&
      message.content.some(
        (block) =>
          isToolResultBlock(block) &&
          !isOffloadReference(block.content) &&
          select(block, countToolResultChars(block.content)),
      );
    if (!qualifies) return message;
    const result = await executeDirectOffload(message, options.sessionId, store, {
      preview: options.preview,
      select,
    });
    return result.message;
  };
}
