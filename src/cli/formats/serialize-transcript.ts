/**
 * Writes a new history in the shape the user gave it: a JSON array stays an array,
 * a request body stays a request body; JSONL and Claude Code logs become a JSON array of
 * messages, the shape every API and this package take.
 */
import type { Message } from '../../index.js';
import { writeRequestBody } from './request-body.js';
import type { Transcript } from './transcript.js';

/** The new history as JSON text (2-space indented, ending with a newline). */
export function serializeHistory(transcript: Transcript, messages: readonly Message[]): string {
  const value = transcript.format === 'request-body' && transcript.requestBody !== undefined ? writeRequestBody(transcript.requestBody, messages) : messages;
  return `${JSON.stringify(value, null, 2)}\n`;
}
