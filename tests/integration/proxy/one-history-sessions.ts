/**
 * The recorded sessions the one-history suites replay, and how their requests are compared: a
 * request is the history up to an assistant message (what the agent sent for that answer), and
 * two requests are the same when their messages are the same bytes once the store paths are
 * set aside (the store's folder, an archive's time of writing, an offload index's name).
 */
import { join } from 'node:path';
import { findRequestTurns } from '../../../src/cli/replay/request-turns.js';
import { loadSampleSession } from '../../../src/cli/sample/load-sample.js';
import { readTranscript } from '../../../src/cli/read-transcript.js';
import { createProcessIo } from '../../../src/cli/command-io.js';
import { isToolResultBlock, isToolUseBlock, type ContentBlock, type Message } from '../../../src/core/types.js';
import { REPOSITORY_ROOT } from '../cli/cli-helpers.js';
import { sendRaw } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

/** One recorded session. */
export interface RecordedSession {
  name: string;
  messages: Message[];
}

function renameIds(messages: readonly Message[], copy: number): Message[] {
  const rename = (block: ContentBlock): ContentBlock => {
    if (isToolUseBlock(block)) return { ...block, id: `${block.id}_${copy}` };
    if (isToolResultBlock(block)) return { ...block, tool_use_id: `${block.tool_use_id}_${copy}` };
    return block;
  };
  return messages.map((message) =>
    typeof message.content === 'string' ? message : { ...message, content: message.content.map(rename) },
  );
}

/** The demo's session (a coding agent fixing CI) `copies` times over, tool ids renamed per copy, system prompt once. */
export async function loadDemoSession(copies: number): Promise<RecordedSession> {
  const [system, ...rest] = (await loadSampleSession()).messages;
  const messages: Message[] = system === undefined ? [] : [system];
  for (let copy = 0; copy < copies; copy += 1) messages.push(...renameIds(rest, copy));
  return { name: `the demo session x${copies}`, messages };
}

/** A Claude Code log from the fixtures. */
export async function loadClaudeCodeLog(file: string): Promise<RecordedSession> {
  const transcript = await readTranscript(join(REPOSITORY_ROOT, 'tests/fixtures/cli', file), createProcessIo());
  return { name: `the Claude Code log ${file}`, messages: transcript.messages };
}

/** The requests of a session: `messages.slice(0, end)` for each assistant message's index `end`. */
export function requestsOf(session: RecordedSession): Message[][] {
  return findRequestTurns(session.messages).map((end) => session.messages.slice(0, end));
}

/** `history` rebuilt from JSON, as a server receives it. */
export function rebuilt(history: readonly Message[]): Message[] {
  return JSON.parse(JSON.stringify(history)) as Message[];
}

/** `text` with the store paths set aside: `directory` (the store's folder), archives' times, offload indexes' names. */
export function setStorePathsAside(text: string, directory: string): string {
  return text
    .split(directory)
    .join('<store>')
    .replace(/compact-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-\d+\.json/g, 'compact-<time>.json')
    .replace(/offload-index-[0-9a-z]{11}\.md/g, 'offload-index-<hash>.md');
}

/** The requests (numbered from 0) whose bytes differ between two replays, with the first difference of the first. */
export function describeDifferences(expected: readonly string[], actual: readonly string[]): string {
  const differing = expected.flatMap((body, index) => (actual[index] === body ? [] : [index]));
  if (differing.length === 0 && expected.length === actual.length) return 'the same bytes at every request';
  const first = differing[0] ?? Math.min(expected.length, actual.length);
  const left = expected[first] ?? '';
  const right = actual[first] ?? '';
  let at = 0;
  while (at < left.length && left[at] === right[at]) at += 1;
  return (
    `${differing.length} of ${expected.length} requests differ (${differing.join(', ')}); request ${first} at char ${at}:\n` +
    `  expected …${left.slice(Math.max(0, at - 120), at + 200)}\n  actual   …${right.slice(Math.max(0, at - 120), at + 200)}`
  );
}

/** An upstream whose usage figure follows from the bytes it was sent, as a real provider's does. */
export function startSizeCountingUpstream(): Promise<ScriptedUpstream> {
  return startScriptedUpstream((record, response) =>
    sendJson(
      response,
      anthropicBody([{ type: 'text', text: 'ok' }], {
        input_tokens: Math.ceil(record.rawBody.length / 4),
        output_tokens: 1,
      }),
    ),
  );
}

/** Sends `body` to a proxy at `origin` as a request of the session `sessionName`; resolves its status. */
export async function sendAsSession(origin: string, sessionName: string, body: string): Promise<number> {
  const reply = await sendRaw(origin, '/v1/messages', {
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
      'x-agent-context-session': sessionName,
    },
    body,
  });
  return reply.status;
}

/** The messages the upstream received from request `from` on, with store paths set aside. */
export function sentMessages(upstream: ScriptedUpstream, from: number, directory: string): string[] {
  return upstream.requests
    .slice(from)
    .map((record) => setStorePathsAside(JSON.stringify(record.body?.messages), directory));
}
