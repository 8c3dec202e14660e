/**
 * One session, one history: recorded sessions replayed request by request the ways a server
 * runs the context manager send the same bytes at every request as one long-lived manager
 * (store paths set aside): a new manager per request, two managers taking turns on one store,
 * a manager restarted every 4 requests; and through the proxy, two proxies taking turns on one
 * store and a proxy restarted every 4 requests, against one proxy. One long-lived manager is
 * given the same message objects at every request, as an agent loop keeps them; every other
 * gets the history rebuilt from JSON, as a server does. Stores are real files in a temp directory.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import { createExtractiveSummarizer } from '../../../src/core/compact/summary/extractive-summarizer.js';
import type { Message } from '../../../src/core/types.js';
import type { OffloadTiming } from '../../../src/index.js';
import {
  describeDifferences,
  loadClaudeCodeLog,
  loadDemoSession,
  rebuilt,
  requestsOf,
  sendAsSession,
  sentMessages,
  startSizeCountingUpstream,
  setStorePathsAside,
  type RecordedSession,
} from './one-history-sessions.js';
import { startProxy, type RunningProxy } from './proxy-harness.js';
import type { ScriptedUpstream } from '../../fixtures/scripted-llm-server.js';

const WINDOW = 12_000;
const silent = { warn: () => undefined };

/** Which managers serve which request: `managerFor(request)` names the manager (a new name: a new manager). */
type Serving = (request: number) => string;

const ONE: Serving = () => 'one';
const NEW_PER_REQUEST: Serving = (request) => `new ${request}`;
const TWO_IN_TURN: Serving = (request) => (request % 2 === 0 ? 'a' : 'b');
const RESTARTED_EVERY_4: Serving = (request) => `run ${Math.floor(request / 4)}`;

let parent: string;
beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), 'aco-one-history-'));
});
afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

/**
 * The store folder of a replay, emptied: the same path for every replay, since paths are in the
 * references and weigh on the token counts (two paths that tokenize apart could move a decision
 * that sits at a threshold, which is not what is compared here).
 */
async function freshDirectory(): Promise<string> {
  const directory = join(parent, 'store');
  await rm(directory, { recursive: true, force: true });
  return directory;
}

/** How each request reaches its manager: as the same message objects (an agent loop) or rebuilt from JSON (a server). */
type Given = 'objects' | 'json';

/**
 * The messages each request sent through managers served as `serving` says, over one file store.
 * With `withUsage`, each request also gets the provider's figure of the one before (a function of
 * the bytes it was sent, as a real provider's is), as an agent loop passes `lastUsage`.
 */
async function replayThroughManagers(
  session: RecordedSession,
  serving: Serving,
  timing: OffloadTiming,
  window: number,
  { withUsage = false, given = serving === ONE ? 'objects' : 'json' }: { withUsage?: boolean; given?: Given } = {},
): Promise<string[]> {
  const directory = await freshDirectory();
  const managers = new Map<string, ReturnType<typeof createContextManager>>();
  const sent: string[] = [];
  let lastUsage: { input_tokens: number; messageCount: number } | undefined;
  for (const [request, history] of requestsOf(session).entries()) {
    const name = serving(request);
    let manager = managers.get(name);
    if (manager === undefined) {
      manager = createContextManager({
        outputDir: directory,
        sessionId: 'one-history',
        contextTokenLimit: window,
        offload: { timing },
        summarizer: createExtractiveSummarizer(),
        logger: silent,
      });
      managers.set(name, manager);
    }
    // one long-lived manager is given the same objects each time, as an agent loop keeps them; the others get JSON
    const { messages } = await manager.prepare(given === 'objects' ? history : rebuilt(history), { lastUsage });
    // the figure counts what was sent (after a compaction, the compacted history the next request starts with)
    lastUsage = withUsage
      ? { input_tokens: Math.ceil(JSON.stringify(messages).length / 3.5), messageCount: messages.length }
      : undefined;
    sent.push(setStorePathsAside(JSON.stringify(messages), directory));
  }
  return sent;
}

const sessions: Array<[string, () => Promise<RecordedSession>, OffloadTiming, number]> = [
  [
    'the demo session x4, results offloaded as they age, in a 12K window',
    () => loadDemoSession(4),
    'as-they-age',
    12_000,
  ],
  [
    'the demo session x4, results offloaded on arrival, in a 12K window',
    () => loadDemoSession(4),
    'on-arrival',
    12_000,
  ],
  [
    'a Claude Code log (a code review), in a 6K window',
    () => loadClaudeCodeLog('claude-code-review-session.jsonl'),
    'as-they-age',
    6000,
  ],
];

describe.each(sessions)('%s', (_, load, timing, window) => {
  let session: RecordedSession;
  let reference: string[];
  let names: string[];
  beforeAll(async () => {
    session = await load();
    reference = await replayThroughManagers(session, ONE, timing, window);
    names = await readdir(join(parent, 'store', 'one-history'));
  });

  it('stores each offloaded result under one name', () => {
    const stems = names.flatMap((name) => {
      const match = /^(?:tool-result-)?(.+)-[0-9a-f]{16}\.md$/.exec(name);
      return match === null || name.startsWith('tool-input-') ? [] : [match[1] as string];
    });
    expect(stems.length).toBeGreaterThan(0);
    expect(stems.filter((stem, index) => stems.indexOf(stem) !== index)).toEqual([]);
  });

  it('compacts and offloads along the way (the replay exercises every decision)', () => {
    expect(reference.some((body) => body.includes('[Conversation compressed]'))).toBe(true);
    expect(reference.some((body) => body.includes('<store>/one-history/'))).toBe(true);
  });

  it.each([
    ['a new manager per request', NEW_PER_REQUEST],
    ['two managers taking turns on one store', TWO_IN_TURN],
    ['a manager restarted every 4 requests', RESTARTED_EVERY_4],
  ])('sends the same bytes at every request with %s as with one manager', async (_mode, serving) => {
    const sent = await replayThroughManagers(session, serving, timing, window);
    expect(describeDifferences(reference, sent)).toBe('the same bytes at every request');
  });
});

describe.each(sessions)(
  "%s, each request given the provider's figure of the one before (lastUsage)",
  (_, load, timing, window) => {
    let session: RecordedSession;
    let reference: string[];
    beforeAll(async () => {
      session = await load();
      reference = await replayThroughManagers(session, ONE, timing, window, { withUsage: true });
    });

    it.each([
      ['one manager given the history rebuilt from JSON', ONE, 'json' as const],
      ['a new manager per request', NEW_PER_REQUEST, 'json' as const],
      ['two managers taking turns on one store', TWO_IN_TURN, 'json' as const],
      ['a manager restarted every 4 requests', RESTARTED_EVERY_4, 'json' as const],
    ])(
      'sends the same bytes at every request with %s as with one manager given the same objects',
      async (_mode, serving, given) => {
        const sent = await replayThroughManagers(session, serving, timing, window, { withUsage: true, given });
        expect(describeDifferences(reference, sent)).toBe('the same bytes at every request');
      },
    );
  },
);

describe('through the proxy, the demo session x2 in a 12K window', () => {
  let upstream: ScriptedUpstream;
  let session: RecordedSession;
  let reference: string[];

  /** An Anthropic Messages body for `history` (its system message as `system`). */
  function toRequestBody(history: readonly Message[]): string {
    const [first, ...rest] = history;
    const system = first?.role === 'system' ? first.content : undefined;
    const messages = system === undefined ? history : rest;
    return JSON.stringify({ model: 'claude-test', max_tokens: 1024, system, messages });
  }

  /** The message histories the upstream received through proxies served as `serving` says, on one store folder. */
  async function replayThroughProxies(serving: Serving): Promise<string[]> {
    const directory = await freshDirectory();
    const proxies = new Map<string, RunningProxy>();
    const from = upstream.requests.length;
    try {
      for (const [request, history] of requestsOf(session).entries()) {
        const name = serving(request);
        let proxy = proxies.get(name);
        if (proxy === undefined) {
          // a restart: the proxy before it is gone
          if (serving === RESTARTED_EVERY_4) for (const running of proxies.values()) await running.close();
          if (serving === RESTARTED_EVERY_4) proxies.clear();
          proxy = await startProxy(upstream.origin, {
            dir: directory,
            contextTokenLimit: WINDOW,
            offload: { timing: 'as-they-age' },
          });
          proxies.set(name, proxy);
        }
        expect(await sendAsSession(proxy.origin, 'one-history', toRequestBody(history))).toBe(200);
      }
    } finally {
      for (const proxy of proxies.values()) await proxy.close();
    }
    return sentMessages(upstream, from, directory);
  }

  beforeAll(async () => {
    // the provider's figure follows from the bytes it was sent, as a real one's does
    upstream = await startSizeCountingUpstream();
    session = await loadDemoSession(2);
    reference = await replayThroughProxies(ONE);
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('compacts and offloads along the way', () => {
    expect(reference.some((body) => body.includes('[Conversation compressed]'))).toBe(true);
    expect(reference.some((body) => body.includes('<store>/one-history/'))).toBe(true);
  });

  it.each([
    ['two proxies taking turns on one store', TWO_IN_TURN],
    ['a proxy restarted every 4 requests', RESTARTED_EVERY_4],
  ])('sends the same bytes at every request with %s as with one proxy', async (_mode, serving) => {
    const sent = await replayThroughProxies(serving);
    expect(describeDifferences(reference, sent)).toBe('the same bytes at every request');
  });
});
