/**
 * Writing a new history back in the shape and format it was read in: a JSON array stays an
 * array, a request body stays a request body (system prompt and every other field in place),
 * and each format's items come back through its own adapter, so the items nothing changed are
 * the ones read (LangChain messages added in the file's JSON form). JSONL files and Claude Code logs become a JSON array of their messages (or
 * items), the shape every API and this package take.
 */
import type { Message } from '../../core/types.js';
import { matchLangchainJsonForm } from './langchain-json.js';
import { writeRequestBody } from './request-body.js';
import type { Transcript } from './transcript.js';

/**
 * The new history `messages` (canonical, as returned by offload or compaction of
 * `transcript.messages`) as a JSON value in the transcript's shape and format.
 */
export function writeTranscript(transcript: Transcript, messages: readonly Message[]): unknown {
  if (transcript.requestBody !== undefined)
    return writeRequestBody(transcript.requestBody, transcript.format, transcript.items, messages);
  const items = transcript.format.fromCanonical(messages, transcript.items);
  // LangChain files hold one of LangChain's JSON forms: new messages are written in it too.
  return transcript.format.name === 'langchain' ? matchLangchainJsonForm(items, transcript.items) : items;
}
