/**
 * Public entry points of direct offload: one message's tool results go to files
 * before the LLM sees them.
 */
import {
  buildToolResultOffloader,
  executeDirectOffload,
  type DirectOffloadResult,
  type ToolResultOffloader,
} from '../core/offload/direct-offload.js';
import {
  resolvePreview,
  resolveToolResultOffloaderOptions,
  type DirectOffloadOptions,
  type OffloadPreviewOptions,
  type ToolResultOffloaderOptions,
} from '../core/options/offload-options.js';
import type { FileWriter } from '../core/ports.js';
import { assertSafePathSegment } from '../core/store/safe-path.js';
import type { Message } from '../core/types.js';
import { assertAbortSignal, createAbortableStore, raceWithSignal } from '../core/abort.js';
import { resolveStoreTarget } from './store-target.js';

/** Options of {@link offloadToolResultWithWriter} beyond its positional arguments. */
export interface DirectOffloadWithWriterOptions {
  /**
   * Opt-in: follow each reference with the first and last characters of the content.
   * @default false
   */
  preview?: boolean | OffloadPreviewOptions | undefined;
}

/**
 * Writes every `tool_result` block of `message` to `<outputDir>/<sessionId>/<tool_use_id>.md`
 * through `writer` and returns a deep copy whose blocks read
 * `[Tool result offloaded to file: <absolute path>]`. No threshold check: the caller
 * decided. Blocks that already are offload references stay as they are; if nothing is left to
 * write, the message itself comes back with `freedChars: 0`, `file: null`, `files: []`. The
 * same id in the same session overwrites its earlier file.
 *
 * A `tool_use_id` that is not a safe file name maps to one (its safe characters, `~` and a
 * hash), and a repeated id in the message gets `<id>~1.md`, a name no real id can take.
 *
 * @throws {@link InvalidMessageError} for a malformed message; {@link NoToolResultError}
 * (`NO_TOOL_RESULT`) for a message without `tool_result`; {@link UnsafePathError} for a
 * `sessionId` that cannot be a folder name; {@link InvalidOptionError} for a
 * bad `outputDir`, `writer` or option — all before any write; {@link WriteFailedError} when
 * the OS refuses a write, with its error as `cause`.
 */
export async function offloadToolResultWithWriter(
  message: Message,
  sessionId: string,
  outputDir: string,
  writer: FileWriter,
  options: DirectOffloadWithWriterOptions = {},
): Promise<DirectOffloadResult> {
  assertSafePathSegment('sessionId', sessionId);
  const store = resolveStoreTarget({ outputDir, writer });
  const preview = resolvePreview(options.preview);
  return executeDirectOffload(message, sessionId, store, { preview });
}

/**
 * {@link offloadToolResultWithWriter} over the file store of `outputDir` (`createFileStore`):
 * files get mode 0600, directories 0700, a symlink is never followed, and `file`/`files` and
 * the references hold absolute paths. With
 * `store` instead of `outputDir`, the content goes to that store under `<sessionId>/<id>.md`
 * and the references are the store's (`redis://...`).
 *
 * @example
 * ```ts
 * const { message: light, file } = await offloadToolResult(toolResultMessage, {
 *   sessionId: 'session-abc123',
 *   outputDir: '.offload',
 * });
 * ```
 */
export async function offloadToolResult(message: Message, options: DirectOffloadOptions): Promise<DirectOffloadResult> {
  // Read defensively: JavaScript callers may pass no options at all.
  const fields: Partial<DirectOffloadOptions> = options ?? {};
  const sessionId = assertSafePathSegment('sessionId', fields.sessionId);
  const store = resolveStoreTarget(
    { store: fields.store, outputDir: fields.outputDir },
    { both: 'a store decides where its content goes' },
  );
  const preview = resolvePreview(fields.preview);
  const signal = assertAbortSignal('signal', fields.signal);
  return raceWithSignal(
    executeDirectOffload(message, sessionId, createAbortableStore(store, signal), { preview }),
    signal,
  );
}

/**
 * Creates the direct offload middleware of an agent loop: pass each user message that
 * carries tool results (and, optionally, the assistant message that made the calls) before
 * sending it to the LLM. Blocks of at least `threshold` characters (default 1000) are offloaded
 * to `<outputDir>/<sessionId>/<tool_use_id>.md`; smaller ones, existing references and results
 * of `excludeTools` (named by the assistant message's `tool_use` blocks) stay inline. When no
 * block qualifies, the message object itself is returned.
 *
 * Options are validated here, once (`INVALID_OPTION`, `UNSAFE_PATH` for `sessionId`); the
 * returned function rejects as {@link offloadToolResultWithWriter} does, except that a message
 * without `tool_result` is returned as is.
 *
 * @example
 * ```ts
 * const offloadLargeResults = createToolResultOffloader({ sessionId, outputDir: '.offload' });
 * messages.push(await offloadLargeResults(toolResultsMessage, assistantMessage));
 * ```
 */
export function createToolResultOffloader(options: ToolResultOffloaderOptions): ToolResultOffloader {
  const resolved = resolveToolResultOffloaderOptions(options);
  const store = resolveStoreTarget(
    { store: options.store, outputDir: options.outputDir, writer: options.writer },
    { both: 'a store decides where its content goes' },
  );
  return buildToolResultOffloader(store, resolved);
}
