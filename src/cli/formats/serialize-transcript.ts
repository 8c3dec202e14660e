/**
 * Writes a new history as JSON text in the shape and format the user gave it (see
 * `writeTranscript`): a JSON array stays an array, a request body stays a request body, an
 * OpenAI or AI SDK history stays in its format.
 */
import type { Message } from '../../core/types.js';
import { writeTranscript } from '../../formats/transcripts/write-transcript.js';
import type { Transcript } from '../../formats/transcripts/transcript.js';
import { toTerminalJson } from '../render/terminal-text.js';

/** Where the history goes: a file keeps every character as it is; standard output may be a terminal. */
export type HistoryDestination = 'file' | 'standard-output';

/**
 * The new history as JSON text (2-space indented, ending with a newline). For standard output,
 * the characters a terminal would obey are written as JSON escapes (the same value once parsed).
 */
export function serializeHistory(
  transcript: Transcript,
  messages: readonly Message[],
  destination: HistoryDestination = 'file',
): string {
  const json = JSON.stringify(writeTranscript(transcript, messages), null, 2);
  return `${destination === 'standard-output' ? toTerminalJson(json) : json}\n`;
}
