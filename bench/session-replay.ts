/**
 * A transcript's requests replayed through the context manager as a web chat sends them: each
 * request is the raw history up to an assistant message. Either one manager serves every
 * request (given the same objects each time, as a long-lived process would) or a new manager
 * serves each request (given the history rebuilt from JSON, as a route handler, a serverless
 * function or a worker pool does), both over a file store in a fresh temp directory. What is
 * counted: summarizer calls, and requests whose messages do not start with what the request
 * before sent (a prompt-cache miss).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContextManager } from '../src/api/context-manager.js';
import { createExtractiveSummarizer } from '../src/core/compact/summary/extractive-summarizer.js';
import type { Message } from '../src/core/types.js';
import { findRequestTurns } from '../src/cli/replay/request-turns.js';
import { loadSampleSession } from '../src/cli/sample/load-sample.js';
import { renameIds } from './cli-process.js';

/** How the requests reach the manager. */
export type ReplayMode = 'one manager' | 'a new manager per request';

/** What a replay counted. */
export interface ReplayFigures {
  mode: ReplayMode;
  requests: number;
  summarizerCalls: number;
  /** Requests whose messages do not start with everything the request before sent. */
  prefixChanges: number;
  /** Wall time of the whole replay, in milliseconds. */
  elapsedMs: number;
}

const silent = { warn: () => undefined };

/**
 * Replays every request of `messages` in `mode`, in a window of `contextTokenLimit` tokens, over
 * a file store in `directory` (created, and removed at the end). Replays to compare should use
 * directories whose paths read alike (`<parent>/a`, `<parent>/b`): the paths are in the
 * references, so they weigh on the token counts.
 */
export async function replayRequests(
  messages: readonly Message[],
  mode: ReplayMode,
  contextTokenLimit: number,
  directory: string,
): Promise<ReplayFigures> {
  try {
    const extractive = createExtractiveSummarizer();
    let summarizerCalls = 0;
    const summarizer = {
      summarize: (history: readonly Message[], options: { maxWords: number; signal?: AbortSignal }) => {
        summarizerCalls += 1;
        return extractive.summarize(history, options);
      },
    };
    const create = () =>
      createContextManager({
        outputDir: directory,
        sessionId: 'replay',
        contextTokenLimit,
        summarizer,
        logger: silent,
      });
    const shared = mode === 'one manager' ? create() : undefined;
    const turns = findRequestTurns(messages);
    let previous: string[] = [];
    let prefixChanges = 0;
    const started = performance.now();
    for (const turn of turns) {
      const raw = messages.slice(0, turn);
      const manager = shared ?? create();
      const input = shared === undefined ? (JSON.parse(JSON.stringify(raw)) as Message[]) : raw;
      const sent = (await manager.prepare(input)).messages.map((message) => JSON.stringify(message));
      if (previous.some((message, index) => sent[index] !== message)) prefixChanges += 1;
      previous = sent;
    }
    return { mode, requests: turns.length, summarizerCalls, prefixChanges, elapsedMs: performance.now() - started };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Replays `messages` in both modes, in sibling directories of one temp folder. */
export async function compareReplays(
  messages: readonly Message[],
  contextTokenLimit: number,
): Promise<Record<ReplayMode, ReplayFigures>> {
  const parent = await mkdtemp(join(tmpdir(), 'aco-session-replay-'));
  try {
    return {
      'one manager': await replayRequests(messages, 'one manager', contextTokenLimit, join(parent, 'a')),
      'a new manager per request': await replayRequests(
        messages,
        'a new manager per request',
        contextTokenLimit,
        join(parent, 'b'),
      ),
    };
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}

/** The sample transcript the package ships, four times over (60 requests), tool ids renamed per copy. */
export async function loadSampleTranscript(copies = 4): Promise<Message[]> {
  const [system, ...rest] = (await loadSampleSession()).messages;
  const messages: Message[] = system === undefined ? [] : [system];
  for (let copy = 0; copy < copies; copy += 1) messages.push(...renameIds(rest, copy));
  return messages;
}
