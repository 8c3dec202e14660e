/**
 * Assembly: Head, then the summary pair, then one pair per restored file. The texts of the
 * pairs are fixed (the constants below).
 */
import type { Logger } from '../ports.js';
import type { Message } from '../types.js';

/** Prefix of the user message that carries the summary; the summary follows it. */
export const COMPRESSED_CONVERSATION_PREFIX = '[Conversation compressed]\n\n';
/** The assistant's reply to the summary message. */
export const SUMMARY_ACKNOWLEDGEMENT =
  'Understood. I have the context from the compressed conversation. Continuing work.';
/** The assistant's reply to each restored file message. */
export const RESTORED_FILE_ACKNOWLEDGEMENT = 'Noted, file content restored.';
/** Prefix of a restored file message: `[Restored after compact] {path}:\n{content}`. */
const RESTORED_FILE_PREFIX = '[Restored after compact] ';

/** Options of {@link assembleMessages}. */
export interface AssembleMessagesOptions {
  /**
   * A user message appended after the last pair, such as `"Continue with the task."`, so the
   * list does not end with an assistant message (which a request would send as a prefill).
   * @default undefined (none)
   */
  resumeMessage?: string | undefined;
  /** Receives a warning when the summary is blank. */
  logger?: Logger | undefined;
}

/** The user message that restores one file: `[Restored after compact] {path}:\n{content}`. */
export function formatRestoredFileMessage(path: string, content: string): Message {
  return { role: 'user', content: `${RESTORED_FILE_PREFIX}${path}:\n${content}` };
}

/**
 * The path a restored-file message names, or `undefined` when `message` is not one. Used so
 * that such a message in Rest counts as a read of its file.
 */
export function parseRestoredFileMessage(message: Message): string | undefined {
  const content = message.content;
  if (message.role !== 'user' || typeof content !== 'string' || !content.startsWith(RESTORED_FILE_PREFIX))
    return undefined;
  const lineEnd = content.indexOf('\n', RESTORED_FILE_PREFIX.length);
  if (lineEnd === -1 || content[lineEnd - 1] !== ':') return undefined;
  const path = content.slice(RESTORED_FILE_PREFIX.length, lineEnd - 1);
  return path === '' ? undefined : path;
}

/**
 * Builds the compacted history:
 * ```
 * ...head
 * user:      "[Conversation compressed]\n\n{summary}"
 * assistant: "Understood. I have the context from the compressed conversation. Continuing work."
 * for each restored file:
 *   user:      the restored file message
 *   assistant: "Noted, file content restored."
 * user:      resumeMessage (only when given)
 * ```
 * After the Head, roles alternate user/assistant. Pure: the inputs are not changed. A blank
 * summary should not happen (the caller treats it as a failure); if it does, a warning is
 * logged and the list is still built.
 */
export function assembleMessages(
  head: readonly Message[],
  summary: string,
  restoredFiles: readonly Message[],
  options: AssembleMessagesOptions = {},
): Message[] {
  if (summary.trim() === '') options.logger?.warn('assembleMessages: the summary is blank; assembling anyway');
  const assembled: Message[] = [
    ...head,
    { role: 'user', content: `${COMPRESSED_CONVERSATION_PREFIX}${summary}` },
    { role: 'assistant', content: SUMMARY_ACKNOWLEDGEMENT },
  ];
  for (const restored of restoredFiles) {
    assembled.push(restored, { role: 'assistant', content: RESTORED_FILE_ACKNOWLEDGEMENT });
  }
  if (options.resumeMessage !== undefined) assembled.push({ role: 'user', content: options.resumeMessage });
  return assembled;
}
