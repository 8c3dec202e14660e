/**
 * One session, one history: recorded sessions replayed through the context manager the ways a
 * server runs it, each request's messages compared byte for byte (store paths set aside) with
 * what one long-lived manager sent. The ways: one manager given the history rebuilt from JSON
 * at every request (a proxy), a new manager per request, two managers taking turns on one
 * store (two processes, two proxies) and a manager restarted every 4 requests.
 *
 *   npx tsx bench/one-history.ts            # every transcript, both timings, a 12K window
 *   npx tsx bench/one-history.ts --quick    # the demo session and the Claude Code logs
 *   npx tsx bench/one-history.ts --usage    # each request also given the provider's figure of the one before
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContextManager } from '../src/api/context-manager.js';
import { createProcessIo } from '../src/cli/command-io.js';
import { readTranscript } from '../src/cli/read-transcript.js';
import { findRequestTurns } from '../src/cli/replay/request-turns.js';
import { createExtractiveSummarizer } from '../src/core/compact/summary/extractive-summarizer.js';
import type { OffloadTiming } from '../src/index.js';
import type { Message } from '../src/core/types.js';
import { buildOneMegabyteHistory, ROOT } from './cli-process.js';
import { loadSampleTranscript } from './session-replay.js';

/** How the requests reach the managers. */
export type ServingMode =
  | 'one manager, rebuilt from JSON'
  | 'a new manager per request'
  | 'two managers in turn'
  | 'restarted every 4 requests';

export const SERVING_MODES: readonly ServingMode[] = [
  'one manager, rebuilt from JSON',
  'a new manager per request',
  'two managers in turn',
  'restarted every 4 requests',
];

/** One recorded session to replay. */
export interface RecordedSession {
  name: string;
  messages: Message[];
}

const silent = { warn: () => undefined };
const withUsage = process.argv.includes('--usage');

/**
 * `body` with the store paths set aside: the store's folder, the archives' names (they hold
 * the time they were written) and the offload indexes' names (a hash of a text that holds the
 * store's folder). Offloaded contents keep their names: a name follows from the
 * content, so one result under two names is a difference.
 */
export function normalizeStorePaths(body: string, directory: string): string {
  return body
    .split(directory)
    .join('<store>')
    .replace(/compact-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-\d+\.json/g, 'compact-<archive>.json')
    .replace(/offload-index-[0-9a-z]{11}\.md/g, 'offload-index-<index>.md');
}

/** The messages each request sent, as JSON with the store's folder replaced by `<store>`. */
export async function replay(
  session: RecordedSession,
  mode: ServingMode | 'one manager',
  timing: OffloadTiming,
  contextTokenLimit: number,
  directory: string,
): Promise<{ sent: string[]; summaries: number }> {
  const extractive = createExtractiveSummarizer();
  let summaries = 0;
  const summarizer: typeof extractive = {
    summarize(history, options) {
      summaries += 1;
      return extractive.summarize(history, options);
    },
  };
  const create = () =>
    createContextManager({
      outputDir: directory,
      sessionId: 'one-history',
      contextTokenLimit,
      offload: { timing },
      summarizer,
      logger: silent,
    });
  const managers = mode === 'two managers in turn' ? [create(), create()] : [create()];
  const sent: string[] = [];
  const turns = findRequestTurns(session.messages);
  let lastUsage: { input_tokens: number; messageCount: number } | undefined;
  for (const [request, turn] of turns.entries()) {
    const raw = session.messages.slice(0, turn);
    let manager = managers[request % managers.length] as ReturnType<typeof create>;
    if (mode === 'a new manager per request' || (mode === 'restarted every 4 requests' && request % 4 === 0))
      manager = managers[0] = create();
    const input = mode === 'one manager' ? raw : (JSON.parse(JSON.stringify(raw)) as Message[]);
    const { messages } = await manager.prepare(input, { lastUsage });
    // with --usage, the provider's figure of this request (a function of the bytes sent, as a real one's is) comes with the next
    lastUsage =
      withUsage && messages.length === raw.length
        ? { input_tokens: Math.ceil(JSON.stringify(messages).length / 3.5), messageCount: raw.length }
        : undefined;
    sent.push(normalizeStorePaths(JSON.stringify(messages), directory));
  }
  return { sent, summaries };
}

/** Results of the replay in `directory` stored under more than one name (their tool call ids). */
export async function findResultsUnderTwoNames(directory: string): Promise<string[]> {
  const names = await readdir(join(directory, 'one-history')).catch(() => [] as string[]);
  const namesOf = new Map<string, number>();
  for (const name of names) {
    const match = /^(?:tool-result-)?(.+)-[0-9a-f]{16}(?:~\d+)?\.md$/.exec(name);
    if (match === null || name.startsWith('tool-input-')) continue;
    namesOf.set(match[1] as string, (namesOf.get(match[1] as string) ?? 0) + 1);
  }
  return [...namesOf].filter(([, count]) => count > 1).map(([stem]) => stem);
}

/**
 * The store folder every replay of a comparison uses, emptied: one path for all, since the paths
 * are in the references and weigh on the token counts (two paths that tokenize differently can
 * move a decision that sits at a threshold).
 */
async function freshStore(parent: string): Promise<string> {
  const directory = join(parent, 'store');
  await rm(directory, { recursive: true, force: true });
  return directory;
}

/** Requests of `session` whose bytes differ from one long-lived manager's, per mode. */
export async function countDifferences(
  session: RecordedSession,
  timing: OffloadTiming,
  contextTokenLimit: number,
  modes: readonly ServingMode[] = SERVING_MODES,
): Promise<{
  requests: number;
  differing: Record<string, number>;
  differingFromFirst: Record<string, number>;
  firstDifference: Record<string, number>;
  underTwoNames: Record<string, number>;
  summaries: Record<string, number>;
}> {
  const parent = await mkdtemp(join(tmpdir(), 'aco-one-history-'));
  try {
    const { sent: reference, summaries: referenceSummaries } = await replay(
      session,
      'one manager',
      timing,
      contextTokenLimit,
      await freshStore(parent),
    );
    const summaries: Record<string, number> = { 'one manager': referenceSummaries };
    const differing: Record<string, number> = {};
    const differingFromFirst: Record<string, number> = {};
    let firstSent: string[] | undefined;
    const firstDifference: Record<string, number> = {};
    const underTwoNames: Record<string, number> = {
      'one manager': (await findResultsUnderTwoNames(join(parent, 'store'))).length,
    };
    for (const mode of modes) {
      const { sent, summaries: modeSummaries } = await replay(
        session,
        mode,
        timing,
        contextTokenLimit,
        await freshStore(parent),
      );
      summaries[mode] = modeSummaries;
      differing[mode] = sent.filter((body, request) => body !== reference[request]).length;
      // and against the first way (one manager given the history rebuilt from JSON, as a server is)
      firstSent ??= sent;
      differingFromFirst[mode] = sent.filter((body, request) => body !== firstSent?.[request]).length;
      firstDifference[mode] = sent.findIndex((body, request) => body !== reference[request]);
      underTwoNames[mode] = (await findResultsUnderTwoNames(join(parent, 'store'))).length;
    }
    return { requests: reference.length, differing, differingFromFirst, firstDifference, underTwoNames, summaries };
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}

/** The recorded sessions: the demo's sample (four times over), the Claude Code logs, and with `quick` off the 1 MB session. */
export async function loadRecordedSessions(quick: boolean): Promise<RecordedSession[]> {
  const io = createProcessIo();
  const log = async (path: string) => (await readTranscript(join(ROOT, path), io)).messages;
  const sessions: RecordedSession[] = [
    { name: 'demo session x4', messages: await loadSampleTranscript() },
    { name: 'Claude Code log', messages: await log('tests/fixtures/cli/claude-code-session.jsonl') },
    { name: 'Claude Code review log', messages: await log('tests/fixtures/cli/claude-code-review-session.jsonl') },
  ];
  if (!quick) sessions.push({ name: '1 MB session', messages: await buildOneMegabyteHistory() });
  return sessions;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const window = 12_000;
  const totals: Record<string, number> = {};
  const twoNames: Record<string, number> = {};
  const summaryTotals: Record<string, number> = {};
  const fromFirst: Record<string, number> = {};
  let requests = 0;
  for (const timing of ['as-they-age', 'on-arrival'] as const) {
    for (const session of await loadRecordedSessions(quick)) {
      const result = await countDifferences(session, timing, window);
      requests += result.requests;
      const cells = SERVING_MODES.map(
        (mode) => `${mode}: ${result.differing[mode]} (first ${result.firstDifference[mode]})`,
      );
      console.log(`${session.name}, ${timing}, ${result.requests} requests | ${cells.join(' | ')}`);
      for (const mode of SERVING_MODES) totals[mode] = (totals[mode] ?? 0) + (result.differing[mode] ?? 0);
      for (const [mode, count] of Object.entries(result.differingFromFirst))
        fromFirst[mode] = (fromFirst[mode] ?? 0) + count;
      for (const [mode, count] of Object.entries(result.summaries))
        summaryTotals[mode] = (summaryTotals[mode] ?? 0) + count;
      for (const [mode, count] of Object.entries(result.underTwoNames)) twoNames[mode] = (twoNames[mode] ?? 0) + count;
    }
  }
  const all = SERVING_MODES.reduce((sum, mode) => sum + (totals[mode] ?? 0), 0);
  console.log(`\nRequests differing from one long-lived manager (window ${window}), of ${requests} per mode:`);
  for (const mode of SERVING_MODES) console.log(`  ${mode}: ${totals[mode]}`);
  console.log(`  all modes: ${all} of ${requests * SERVING_MODES.length}`);
  console.log(`\nRequests differing from one manager given the history rebuilt from JSON, of ${requests} per mode:`);
  for (const [mode, count] of Object.entries(fromFirst)) console.log(`  ${mode}: ${count}`);
  console.log('\nSummaries written (a span summarized twice shows here):');
  for (const [mode, count] of Object.entries(summaryTotals)) console.log(`  ${mode}: ${count}`);
  console.log('\nResults stored under more than one name:');
  for (const [mode, count] of Object.entries(twoNames)) console.log(`  ${mode}: ${count}`);
}

if (process.argv[1]?.endsWith('one-history.ts')) await main();
