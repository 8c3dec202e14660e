/**
 * `agent-context replay` on the demo's sample session, on a Claude Code log and on a request
 * body (its page in a real browser: cli-replay-browser.test.ts).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countTokens } from '../../../src/index.js';
import type { Message } from '../../../src/index.js';
import type { ReplayReport } from '../../../src/cli/replay/replay-report.js';
import { anthropicMessage, startFakeProviderServer } from '../../fixtures/scripted-llm-server.js';
import type { FakeProviderServer } from '../../fixtures/scripted-llm-server.js';
import {
  createTemporaryDirectory,
  fixturePath,
  hasAnsi,
  readFixtureMessages,
  REPOSITORY_ROOT,
  runInProcess,
} from './cli-helpers.js';
import type { RunInProcessOptions } from './cli-helpers.js';

const SAMPLE = join(REPOSITORY_ROOT, 'src/cli/sample/session.json');
const SPINNER_FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

let directory: { path: string; remove: () => Promise<void> };
/** The child's temporary directory: whatever replay puts there must be gone when it ends. */
let childTemp: string;

beforeEach(async () => {
  directory = await createTemporaryDirectory('aco-cli-replay-');
  childTemp = join(directory.path, 'tmp');
  await mkdir(childTemp);
});
afterEach(async () => {
  await directory.remove();
});

function replay(args: readonly string[], options: RunInProcessOptions = {}): ReturnType<typeof runInProcess> {
  return runInProcess(['replay', ...args], { ...options, env: { TMPDIR: childTemp, ...options.env } });
}

async function replayJson(args: readonly string[], options: RunInProcessOptions = {}): Promise<ReplayReport> {
  const run = await replay([...args, '--json'], options);
  expect(run.exitCode, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ReplayReport;
}

function assistantIndices(messages: readonly Message[]): number[] {
  return messages.flatMap((message, index) => (message.role === 'assistant' ? [index] : []));
}

describe('agent-context replay on the demo sample', () => {
  it('replays one model request per assistant message; without the manager each sends the raw history before it', async () => {
    const messages = JSON.parse(await readFile(SAMPLE, 'utf8')) as Message[];
    const report = await replayJson([SAMPLE, '--window', '2500']);
    const turns = assistantIndices(messages);
    expect(report.requests.map((request) => request.messageIndex)).toEqual(turns);
    expect(report.requests.map((request) => request.tokensWithout)).toEqual(
      turns.map((index) => countTokens(messages.slice(0, index))),
    );
    expect(report.totals.tokensWithout).toBe(report.requests.reduce((sum, request) => sum + request.tokensWithout, 0));
  });

  it('offloads the large tool results and compacts in a small window: the managed context stays under it', async () => {
    // 3,000 tokens: the sample's system prompt and a summary take most of it, the newest result the rest
    const report = await replayJson([SAMPLE, '--window', '3k']);
    expect(report.contextTokenLimit).toBe(3000);
    expect(report.triggerTokens).toBe(2760);
    expect(report.totals.offloadedResults).toBeGreaterThan(5);
    expect(report.totals.compactions).toBeGreaterThanOrEqual(1);
    expect(report.totals.peakWith).toBeLessThan(3000);
    expect(report.totals.peakWithout).toBeGreaterThan(70_000);
    expect(report.totals.requestsOverWindowWith).toBe(0);
    const compacted = report.requests.find((request) => request.compaction !== null)!;
    expect(compacted.compaction!.tokensAfter).toBeLessThan(compacted.compaction!.tokensBefore);
    expect(report.summarizer).toBe('extractive (offline, deterministic)');
  });

  it('estimates the input cost at the given price per million tokens', async () => {
    const report = await replayJson([SAMPLE, '--window', '30k', '--price-per-mtok', '15']);
    expect(report.pricePerMTok).toBe(15);
    expect(report.totals.costWithout).toBeCloseTo((report.totals.tokensWithout * 15) / 1e6, 9);
    expect(report.totals.costWith).toBeCloseTo((report.totals.tokensWith * 15) / 1e6, 9);
  });

  it('prices every request with prompt caching too: the previous prefix read at 0.1x, the rest written at 1.25x', async () => {
    const report = await replayJson([SAMPLE, '--window', '2500']);
    expect([report.cacheReadRatio, report.cacheWriteRatio]).toEqual([0.1, 1.25]);
    for (const request of report.requests) {
      const expected =
        ((request.cacheReadTokensWith * 0.1 + (request.tokensWith - request.cacheReadTokensWith) * 1.25) * 3) / 1e6;
      expect(request.cachedCostWith).toBeCloseTo(expected, 12);
    }
    // the raw history only grows: after the first request, each starts with the one before it
    expect(
      report.requests
        .slice(1)
        .every((request, index) => request.cacheReadTokensWithout === report.requests[index]!.tokensWithout),
    ).toBe(true);
    expect(report.totals.cachedCostWithout).toBeLessThan(report.totals.costWithout);
    // offloads and the compaction change what was sent: the cache breaks there
    expect(report.totals.prefixChangesWith).toBeGreaterThan(0);
    expect(report.totals.prefixChangesWith).toBe(report.requests.filter((request) => request.prefixChangedWith).length);
  });

  it('counts the read-backs of results the model got cut, apart from the requests, and prints them', async () => {
    // 2,500 tokens: the sample's large results are cut (head, tail and reference) before the model sees them
    const report = await replayJson([SAMPLE, '--window', '2500']);
    expect(report.totals.readBacks).toBeGreaterThan(0);
    expect(report.totals.readBacks).toBe(report.requests.reduce((sum, request) => sum + request.readBacks, 0));
    const readBack = report.requests.find((request) => request.readBacks > 0)!;
    // each read-back carries its request again, and more
    expect(readBack.readBackTokens).toBeGreaterThan(readBack.readBacks * readBack.tokensWith);
    expect(report.totals.tokensWith).toBe(report.requests.reduce((sum, request) => sum + request.tokensWith, 0));
    const run = await replay([SAMPLE, '--window', '2500']);
    expect(run.stdout).toContain(`\n  read-backs${' '.repeat(20)}`);
    expect(run.stdout).toMatch(
      new RegExp(` ${report.totals.readBacks}  [\\d,]+ tokens, \\$\\d+\\.\\d\\d with caching\\n`),
    );
  });

  it('takes the family from --cost-family: openai has no write premium', async () => {
    const report = await replayJson([SAMPLE, '--window', '30k', '--cost-family', 'openai']);
    expect([report.costFamily, report.cacheWriteRatio]).toEqual(['openai', 1]);
    const last = report.requests.at(-1)!;
    expect(last.cachedCostWith).toBeCloseTo(
      ((last.cacheReadTokensWith * report.cacheReadRatio + (last.tokensWith - last.cacheReadTokensWith)) *
        report.pricePerMTok) /
        1e6,
      12,
    );
  });

  it('lets --cache-read-ratio win over the family given by --cost-family', async () => {
    const report = await replayJson([SAMPLE, '--cost-family', 'none', '--cache-read-ratio', '0.2']);
    expect([report.costFamily, report.cacheReadRatio, report.cacheWriteRatio]).toEqual(['none', 0.2, 1]);
  });

  it('takes the cache ratios from --cache-read-ratio and --cache-write-ratio, and prints both costs', async () => {
    const report = await replayJson([
      SAMPLE,
      '--window',
      '30k',
      '--cache-read-ratio',
      '0.5',
      '--cache-write-ratio',
      '1',
    ]);
    expect([report.cacheReadRatio, report.cacheWriteRatio]).toEqual([0.5, 1]);
    const last = report.requests.at(-1)!;
    expect(last.cachedCostWith).toBeCloseTo(
      ((last.cacheReadTokensWith * 0.5 + (last.tokensWith - last.cacheReadTokensWith)) * 3) / 1e6,
      12,
    );
    const run = await replay([SAMPLE, '--window', '30k']);
    expect(run.stdout).toMatch(
      /\n {4}with prompt caching +\$\d+\.\d\d +\$\d+\.\d\d {2}\d+ prefix changes? with the manager\n/,
    );
  });

  it('prints a chart of both lines in 80 columns and the summary table, without colour or spinner when piped', async () => {
    const run = await replay([SAMPLE, '--window', '2500']);
    expect(run.exitCode).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`replay  ${SAMPLE} (JSON array of messages, 31 messages, 15 model requests)`);
    const chart = lines.slice(
      lines.indexOf('  context tokens per model request') + 1,
      lines.findIndex((line) => line.includes('with the manager   · without')) + 1,
    );
    expect(chart.length).toBe(15);
    for (const line of chart) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    expect(chart.join('\n')).toContain('•');
    expect(chart.join('\n')).toContain('·');
    expect(run.stdout).toMatch(/peak context \(tokens\) +76,\d{3} +[\d,]+\n/);
    expect(run.stdout).toMatch(/compactions +- +[1-9]/);
    expect(run.stdout).toMatch(/before request \d+: [\d,]+ → [\d,]+ tokens/);
    expect(hasAnsi(run.stdout + run.stderr)).toBe(false);
    expect(run.stderr).not.toMatch(SPINNER_FRAMES);
  });

  it('leaves nothing behind in the temporary directory', async () => {
    await replayJson([SAMPLE, '--window', '2500']);
    expect(await readdir(childTemp)).toEqual([]);
  });

  it('--out keeps the offloaded results and the archives there', async () => {
    const out = join(directory.path, 'store');
    const report = await replayJson([SAMPLE, '--window', '2500', '--out', out]);
    expect(report.store).toBe(out);
    const files = await readdir(join(out, 'default'));
    expect(files.filter((name) => name.endsWith('.md') && !name.startsWith('offload-index-')).length).toBe(
      report.totals.offloadedResults,
    );
    expect(files.filter((name) => /^compact-.*\.json$/.test(name)).length).toBe(report.totals.compactions);
    const archive = report.requests.find((request) => request.compaction !== null)!.compaction!.archiveReference!;
    expect(existsSync(archive)).toBe(true);
  });
});

describe('agent-context replay on other transcripts', () => {
  it('reads a Claude Code session log', async () => {
    const messages = await readFixtureMessages('claude-code-session.jsonl');
    const report = await replayJson([fixturePath('claude-code-session.jsonl'), '--window', '100k']);
    expect(report.shape).toBe('claude-code');
    expect(report.requests).toHaveLength(assistantIndices(messages).length);
    expect(report.requests[0]?.tokensWith).toBe(report.requests[0]?.tokensWithout);
    expect(report.totals.compactions).toBe(0);
  });

  it('counts a request body’s tool definitions in every request', async () => {
    const report = await replayJson([fixturePath('request-body.json')]);
    expect(report.shape).toBe('request-body');
    expect(report.toolDefinitionTokens).toBeGreaterThan(0);
    expect(report.requests[0]?.tokensWithout).toBeGreaterThan(report.toolDefinitionTokens);
    expect(report.requests[0]?.tokensWith).toBe(report.requests[0]?.tokensWithout);
  });

  it.each([
    ['formats/openai-chat.json', 'openai-chat'],
    ['formats/openai-responses-body.json', 'openai-responses'],
    ['formats/openai-agents.json', 'openai-agents'],
    ['formats/ai-sdk.json', 'ai-sdk'],
    ['formats/langchain-stored.json', 'langchain'],
  ])('reads %s (%s): one request per assistant message of the canonical history', async (name, format) => {
    const report = await replayJson([fixturePath(name)]);
    expect(report.messageFormat).toBe(format);
    expect(report.requests.map((request) => request.messageIndex)).toEqual(
      assistantIndices(await readFixtureMessages(name)),
    );
  });

  it("prices with the cost model of the transcript's model: an OpenAI model writes at 1x and reads at its discount", async () => {
    const body = JSON.parse(await readFile(fixturePath('request-body.json'), 'utf8')) as Record<string, unknown>;
    const path = join(directory.path, 'gpt-body.json');
    await writeFile(path, JSON.stringify({ ...body, model: 'gpt-4.1' }));
    const report = await replayJson([path]);
    expect([report.costFamily, report.cacheReadRatio, report.cacheWriteRatio, report.pricePerMTok]).toEqual([
      'openai',
      0.25,
      1,
      2,
    ]);
  });

  it('reads standard input', async () => {
    const report = await replayJson(['-'], { stdin: await readFile(SAMPLE, 'utf8') });
    expect(report.source).toBe('stdin');
    expect(report.requests).toHaveLength(15);
  });
});

describe('agent-context replay --provider: summaries from an LLM over HTTP', () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProviderServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('asks the model for each compaction and says who wrote the summaries', async () => {
    server.enqueue(
      '/v1/messages',
      ...Array.from({ length: 20 }, () =>
        anthropicMessage('## Goals & Decisions\nFix the rounding of invoice totals.'),
      ),
    );
    const report = await replayJson(
      [SAMPLE, '--window', '2500', '--provider', 'anthropic', '--base-url', server.origin],
      { env: { ANTHROPIC_API_KEY: 'sk-test' } },
    );
    expect(report.summarizer).toBe(`anthropic claude-haiku-4-5-20251001 at ${server.origin}`);
    expect(report.totals.compactions).toBeGreaterThanOrEqual(1);
    expect(server.requestsTo('/v1/messages').length).toBeGreaterThanOrEqual(report.totals.compactions);
  });
});

describe('agent-context replay: bad input', () => {
  it('a transcript without an assistant message: one line, exit 1, nothing written', async () => {
    const file = join(directory.path, 'short.json');
    await writeFile(file, JSON.stringify([{ role: 'user', content: 'Hello?' }]));
    const html = join(directory.path, 'report.html');
    const out = join(directory.path, 'store');
    const run = await replay([file, '--html', html, '--out', out]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      `agent-context: ${file}: nothing to replay: no assistant message (each one answers a model request, 1 messages read)\n`,
    );
    expect(run.stdout).toBe('');
    expect(existsSync(html) || existsSync(out)).toBe(false);
    expect(await readdir(childTemp)).toEqual([]);
  });

  it('a window not larger than the system prompt: exit 2, nothing written', async () => {
    const html = join(directory.path, 'report.html');
    const run = await replay([SAMPLE, '--window', '100', '--html', html]);
    expect(run.exitCode).toBe(2);
    const systemTokens = countTokens((JSON.parse(await readFile(SAMPLE, 'utf8')) as Message[]).slice(0, 1));
    expect(run.stderr.split('\n')[0]).toBe(
      `agent-context: --window 100 is not larger than the system prompt (${systemTokens} tokens), which every request sends: pass a larger --window`,
    );
    expect(existsSync(html)).toBe(false);
    expect(await readdir(childTemp)).toEqual([]);
  });

  it.each([
    [['--provider', 'gemini'], 'agent-context: --provider must be one of anthropic, openai, extractive, got "gemini"'],
    [
      ['--window', '10 tokens'],
      'agent-context: --window must be a whole number of tokens >= 1 such as 30000, 100k or 1.5m, got "10 tokens"',
    ],
    [['--price-per-mtok', 'free'], 'agent-context: --price-per-mtok must be a number >= 0, got "free"'],
    [['--threshold', '0'], 'agent-context: --threshold must be a number >= 1, got "0"'],
    [['--cache-read-ratio', '-0.1'], 'agent-context: --cache-read-ratio must be a number >= 0, got "-0.1"'],
    [['--cache-write-ratio', 'x'], 'agent-context: --cache-write-ratio must be a number >= 0, got "x"'],
    [['--cost-family', 'google'], 'agent-context: --cost-family must be "anthropic", "openai" or "none", got "google"'],
    [['--model', 'x'], 'agent-context: --model needs an LLM: pass --provider anthropic or openai'],
  ])('%j: a usage error, exit 2, nothing written', async (flags, message) => {
    const html = join(directory.path, 'report.html');
    const run = await replay([SAMPLE, ...flags, '--html', html]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`${message}\nRun "agent-context replay --help" for usage.\n`);
    expect(existsSync(html)).toBe(false);
  });

  it('--html naming the transcript itself: a usage error, exit 2, the transcript left as it was', async () => {
    const file = join(directory.path, 'session.json');
    const text = await readFile(SAMPLE, 'utf8');
    await writeFile(file, text);
    await symlink(file, join(directory.path, 'link.json'));
    for (const page of [file, join(directory.path, '.', 'session.json'), join(directory.path, 'link.json')]) {
      const run = await replay([file, '--window', '2500', '--html', page]);
      expect(run.exitCode).toBe(2);
      expect(run.stderr.split('\n')[0]).toBe(
        `agent-context: --html ${page} names the transcript being replayed; the page would replace it: pass another file`,
      );
      expect(await readFile(file, 'utf8')).toBe(text);
    }
    expect(await readdir(childTemp)).toEqual([]);
  });

  it('--out creates its folder, and the folders above it, for the user alone (0700)', async () => {
    const out = join(directory.path, 'runs', 'store');
    await replayJson([SAMPLE, '--window', '30k', '--out', out]);
    expect((await stat(out)).mode & 0o777).toBe(0o700);
    expect((await stat(join(directory.path, 'runs'))).mode & 0o777).toBe(0o700);
  });

  it('a missing file: exit 1', async () => {
    const run = await replay([join(directory.path, 'nope.json')]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('no such file (ENOENT)');
  });

  it('has its help', async () => {
    const run = await runInProcess(['replay', '--help']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Usage: agent-context replay <file> [options]');
    expect(run.stdout).toContain('--price-per-mtok <usd>');
  });
});
