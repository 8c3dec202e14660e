/**
 * `agent-context eval` on the demo's sample session and on a Claude Code log, offline and with
 * an LLM summarizer over HTTP (the local fake provider), and its bad input.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/index.js';
import type { EvalReport } from '../../../src/cli/eval.js';
import type { ProbeKind } from '../../../src/cli/replay/eval-score.js';
import { anthropicMessage, startFakeProviderServer } from '../../fixtures/scripted-llm-server.js';
import type { FakeProviderServer } from '../../fixtures/scripted-llm-server.js';
import { createTemporaryDirectory, fixturePath, hasAnsi, REPOSITORY_ROOT, runInProcess } from './cli-helpers.js';
import type { RunInProcessOptions } from './cli-helpers.js';

const SAMPLE = join(REPOSITORY_ROOT, 'src/cli/sample/session.json');

let directory: { path: string; remove: () => Promise<void> };
let childTemp: string;

beforeEach(async () => {
  directory = await createTemporaryDirectory('aco-cli-eval-');
  childTemp = join(directory.path, 'tmp');
  await mkdir(childTemp);
});
afterEach(async () => {
  await directory.remove();
});

function evaluate(args: readonly string[], options: RunInProcessOptions = {}): ReturnType<typeof runInProcess> {
  return runInProcess(['eval', ...args], { ...options, env: { TMPDIR: childTemp, ...options.env } });
}

async function evaluateJson(args: readonly string[], options: RunInProcessOptions = {}): Promise<EvalReport> {
  const run = await evaluate([...args, '--json'], options);
  expect(run.exitCode, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as EvalReport;
}

function subjectsOf(report: EvalReport, kind: ProbeKind): string[] {
  return report.score.probes.filter((probe) => probe.kind === kind).map((probe) => probe.subject);
}

function kindOf(report: EvalReport, kind: ProbeKind): EvalReport['score']['kinds'][number] {
  return report.score.kinds.find((row) => row.kind === kind)!;
}

/** A session that writes `count` files, one call each, then says it is done. */
function writeManyFiles(count: number): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Rename the helpers in every module.' },
  ];
  for (let index = 0; index < count; index += 1) {
    const id = `w${index}`;
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id,
          name: 'write_file',
          input: {
            path: `src/module-${String(index).padStart(2, '0')}.ts`,
            content: `export const v${index} = ${index};\n${'// a helper renamed in this module\n'.repeat(4)}`,
          },
        },
      ],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] });
  }
  messages.push({ role: 'assistant', content: `Renamed in all ${count} modules.` });
  return messages;
}

describe('agent-context eval on the demo sample', () => {
  it('reads the probes off the raw transcript: the task, the three edited files, the last read, the last command', async () => {
    const report = await evaluateJson([SAMPLE]);
    expect(subjectsOf(report, 'task')).toEqual([
      'CI has been red on main since #412 (half-even rounding) was merged: `npm test` f',
    ]);
    expect(subjectsOf(report, 'edited-file')).toEqual([
      'src/money/round.ts',
      'src/invoice/totals.ts',
      'src/invoice/tax.ts',
    ]);
    expect(subjectsOf(report, 'last-read-file')).toEqual(['src/invoice/tax.ts']);
    expect(subjectsOf(report, 'last-command')).toEqual(['npx tsc --noEmit && npm run lint']);
    expect(subjectsOf(report, 'last-error')).toEqual([
      expect.stringMatching(/^run_command: AssertionError: expected /),
    ]);
  });

  it('offloads the large results first, then compacts: one probe per offloaded reference, and the archive', async () => {
    const report = await evaluateJson([SAMPLE]);
    expect(report.offloadedResults).toBeGreaterThan(10);
    expect(kindOf(report, 'offloaded-result').probes).toBe(report.offloadedResults);
    expect(kindOf(report, 'archive')).toMatchObject({ probes: 1, kept: 1 });
    expect(report.tokensAfter).toBeLessThan(report.tokensAfterOffload);
    expect(report.tokensAfterOffload).toBeLessThan(report.tokensBefore);
  });

  it('prices the compaction with prompt caching: the next request writes the compacted context again', async () => {
    const report = await evaluateJson([SAMPLE, '--cost-family', 'openai', '--cache-read-ratio', '0.1']);
    expect(report.cost.model).toMatchObject({ family: 'openai', readRatio: 0.1, writeRatio: 1 });
    expect(report.cost.nextRequestWith).toBe(report.tokensAfter);
    expect(report.cost.nextRequestWithout).toBeCloseTo(report.tokensBefore * 0.1, 9);
    const saved = (report.tokensBefore - report.tokensAfter) * 0.1;
    const extra = report.tokensAfter - report.tokensBefore * 0.1;
    expect(report.cost.breakEvenRequests).toBe(extra <= 0 ? 0 : Math.ceil(extra / saved));
  });

  it('keeps what the compaction ledger carries: the requests, the files, the command', async () => {
    const report = await evaluateJson([SAMPLE]);
    for (const kind of ['task', 'latest-request', 'edited-file', 'last-read-file', 'last-command'] as const) {
      expect(kindOf(report, kind).kept, kind).toBe(kindOf(report, kind).probes);
    }
    expect(report.score.total).toBe(report.score.probes.length);
    expect(report.score.score).toBeCloseTo(report.score.kept / report.score.total, 12);
  });

  it('keeps the last error whose log was offloaded first: the ledger reads its error line back from the store', async () => {
    const report = await evaluateJson([SAMPLE]);
    expect(report.offloadedResults).toBeGreaterThan(0);
    expect(kindOf(report, 'last-error')).toMatchObject({ probes: 1, kept: 1 });
  });

  it('without offloading, the last error is in the context too', async () => {
    const report = await evaluateJson([SAMPLE, '--threshold', '1000000']);
    expect(report.offloadedResults).toBe(0);
    expect(kindOf(report, 'offloaded-result').probes).toBe(0);
    expect(kindOf(report, 'last-error')).toMatchObject({ probes: 1, kept: 1 });
  });

  it('prints a table per probe kind and the score, without colour when piped', async () => {
    const run = await evaluate([SAMPLE]);
    expect(run.exitCode).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`eval  ${SAMPLE} (JSON array of messages, 31 messages)`);
    expect(run.stdout).toContain('summarizer: extractive (offline, deterministic)');
    expect(run.stdout).toMatch(/\n {2}the compacted context holds +kept\n/);
    expect(run.stdout).toMatch(/\n {2}every edited file +3\/3 {2}✓\n/);
    expect(run.stdout).toMatch(/\n {2}score +\d+\/\d+ {2}\d+\.\d%\n/);
    expect(hasAnsi(run.stdout + run.stderr)).toBe(false);
  });

  it('leaves nothing behind in the temporary directory; --out keeps the store', async () => {
    await evaluateJson([SAMPLE]);
    expect(await readdir(childTemp)).toEqual([]);
    const out = join(directory.path, 'store');
    const report = await evaluateJson([SAMPLE, '--out', out]);
    expect(report.store).toBe(out);
    expect(existsSync(report.archiveReference!)).toBe(true);
    expect((await readdir(out)).filter((name) => name.startsWith('tool-result-'))).toHaveLength(
      report.offloadedResults,
    );
  });
});

/**
 * The sample as Claude Code writes a session log: one line per content block (an assistant
 * message's lines share `message.id`), tool results in user lines, no system prompt.
 */
function toClaudeCodeLog(messages: readonly Message[]): string {
  const lines: string[] = [];
  let parentUuid: string | null = null;
  messages.forEach((message, index) => {
    if (message.role === 'system') return;
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    blocks.forEach((block, blockIndex) => {
      const uuid = `00000000-0000-4000-8000-${String(index * 100 + blockIndex).padStart(12, '0')}`;
      const inner =
        message.role === 'assistant'
          ? { id: `msg_${index}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [block] }
          : { role: 'user', content: [block] };
      lines.push(
        JSON.stringify({
          parentUuid,
          isSidechain: false,
          type: message.role,
          message: inner,
          uuid,
          sessionId: 'session-1',
          cwd: '/home/dev/invoice-kit',
        }),
      );
      parentUuid = uuid;
    });
  });
  return `${lines.join('\n')}\n`;
}

describe('agent-context eval on Claude Code logs', () => {
  it('reads a session log: the probes come from the rebuilt conversation', async () => {
    const file = join(directory.path, 'session.jsonl');
    await writeFile(file, toClaudeCodeLog(JSON.parse(await readFile(SAMPLE, 'utf8')) as Message[]));
    const report = await evaluateJson([file]);
    expect(report.shape).toBe('claude-code');
    expect(subjectsOf(report, 'edited-file')).toEqual([
      'src/money/round.ts',
      'src/invoice/totals.ts',
      'src/invoice/tax.ts',
    ]);
    expect(kindOf(report, 'offloaded-result').probes).toBe(report.offloadedResults);
    expect(kindOf(report, 'edited-file').kept).toBe(3);
    expect(kindOf(report, 'archive').kept).toBe(1);
  });

  it('takes the task past the caveat Claude Code injects, and the files by their file_path', async () => {
    // the fixture is short: compacted without offloading first, or a summary would not be smaller
    const report = await evaluateJson([fixturePath('claude-code-session.jsonl'), '--threshold', '1000000']);
    expect(report.shape).toBe('claude-code');
    expect(subjectsOf(report, 'task')).toEqual([
      'The startOfWeek test fails on Sundays, see tests/date.test.ts. Please fix it.',
    ]);
    expect(subjectsOf(report, 'edited-file')).toEqual(['/home/dev/app/src/date.ts']);
    expect(subjectsOf(report, 'last-read-file')).toEqual(['/home/dev/app/tests/date.test.ts']);
    expect(subjectsOf(report, 'last-command')).toEqual(['npx vitest run tests/date.test.ts']);
    expect(kindOf(report, 'task').kept).toBe(1);
    expect(kindOf(report, 'edited-file').kept).toBe(1);
  });

  it('says why there is nothing to score when a summary would not be smaller than the history', async () => {
    const run = await evaluate([fixturePath('messages.json'), '--threshold', '100']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(
      /agent-context: not compacted: a summary would not make the history \([\d,]+ tokens after offloading \d+ tool results\) smaller, so there is nothing to score; evaluate a longer transcript, or pass --threshold 1000000 to compact it without offloading first\n$/,
    );
  });
});

describe('agent-context eval on a Claude Code review started with a slash command', () => {
  const REVIEW = fixturePath('claude-code-review-session.jsonl');

  it('takes the slash command for the task, past a local command, its caveat and its output, and keeps it', async () => {
    const report = await evaluateJson([REVIEW]);
    expect(subjectsOf(report, 'task')).toEqual(['/review https://github.com/acme/invoice-kit/pull/344']);
    expect(subjectsOf(report, 'latest-request')).toEqual(['Also check that the docs still match.']);
    expect(kindOf(report, 'task')).toMatchObject({ probes: 1, kept: 1 });
  });

  it('takes the test run that printed a failure, though not marked as an error, for the last error, and keeps it though it was offloaded', async () => {
    const report = await evaluateJson([REVIEW]);
    expect(subjectsOf(report, 'last-error')).toEqual([
      expect.stringMatching(/^Bash: AssertionError: expected \{ netMinor: 2336/),
    ]);
    expect(kindOf(report, 'last-error')).toMatchObject({ probes: 1, kept: 1 });
  });

  it('keeps every offloaded result one read away with its gist: the most recent in the ledger, all of them in the index', async () => {
    const out = join(directory.path, 'store');
    const report = await evaluateJson([REVIEW, '--out', out]);
    expect(report.offloadedResults).toBe(17);
    expect(kindOf(report, 'offloaded-result')).toMatchObject({ probes: 17, kept: 17 });
    const indexes = (await readdir(join(out, 'default'))).filter((name) => name.startsWith('offload-index-'));
    expect(indexes).toHaveLength(1);
    const index = await readFile(join(out, 'default', indexes[0]!), 'utf8');
    expect(index).toContain('["Bash","toolu_r04Test","npx vitest run tests/invoice 2>&1 | tail -80",');
    expect(report.score.score).toBe(1);
  });
});

describe('agent-context eval --provider: compare summarizers on the same transcript', () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProviderServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('scores what an LLM summary plus the ledger keeps, against the extractive summary', async () => {
    const file = join(directory.path, 'many-files.json');
    await writeFile(file, JSON.stringify(writeManyFiles(20)));
    server.enqueue('/v1/messages', anthropicMessage('## Goals & Decisions\nRename the helpers.'));
    const llm = await evaluateJson([file, '--provider', 'anthropic', '--base-url', server.origin], {
      env: { ANTHROPIC_API_KEY: 'sk-test' },
    });
    expect(llm.summarizer).toBe(`anthropic claude-haiku-4-5-20251001 at ${server.origin}`);
    expect(server.requestsTo('/v1/messages')).toHaveLength(1);
    // the model's summary names no file: the ledger names the 15 most recent, the index it names all 20
    expect(kindOf(llm, 'edited-file')).toMatchObject({ probes: 20, kept: 20 });
    expect(kindOf(llm, 'edited-file').missing).toEqual([]);
    const extractive = await evaluateJson([file]);
    expect(kindOf(extractive, 'edited-file')).toMatchObject({ probes: 20, kept: 20 });
    expect(extractive.score.score).toBeGreaterThanOrEqual(llm.score.score);
  });
});

describe('agent-context eval: bad input', () => {
  it('a transcript without an assistant message: one line, exit 1, nothing written', async () => {
    const file = join(directory.path, 'short.json');
    await writeFile(
      file,
      JSON.stringify([
        { role: 'system', content: 'S' },
        { role: 'user', content: 'Hello?' },
      ]),
    );
    const out = join(directory.path, 'store');
    const run = await evaluate([file, '--out', out]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(`agent-context: ${file}: nothing to evaluate: no assistant message (2 messages read)\n`);
    expect(run.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
    expect(await readdir(childTemp)).toEqual([]);
  });

  it.each([
    [['--provider', 'gemini'], 'agent-context: --provider must be one of anthropic, openai, extractive, got "gemini"'],
    [['--threshold', 'big'], 'agent-context: --threshold must be a number >= 1, got "big"'],
    [
      ['--base-url', 'http://127.0.0.1:1'],
      'agent-context: --base-url needs an LLM: pass --provider anthropic or openai',
    ],
  ])('%j: a usage error, exit 2, nothing written', async (flags, message) => {
    const out = join(directory.path, 'store');
    const run = await evaluate([SAMPLE, ...flags, '--out', out]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`${message}\nRun "agent-context eval --help" for usage.\n`);
    expect(existsSync(out)).toBe(false);
  });

  it('a summarizer that fails: exit 1 with its error on one line', async () => {
    const server = await startFakeProviderServer();
    try {
      server.enqueue(
        '/v1/messages',
        ...Array.from({ length: 5 }, () => ({
          status: 400,
          body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad (test)' } },
        })),
      );
      const run = await evaluate([SAMPLE, '--provider', 'anthropic', '--base-url', server.origin], {
        env: { ANTHROPIC_API_KEY: 'sk-test', COMPACT_MAX_RETRIES: '0' },
      });
      expect(run.exitCode).toBe(1);
      expect(run.stderr.split('\n').filter((line) => line.startsWith('agent-context:'))).toHaveLength(1);
      expect(run.stderr).toMatch(/agent-context: compaction failed: the summarizer failed: /);
      expect(await readdir(childTemp)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('has its help', async () => {
    const run = await runInProcess(['eval', '--help']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Usage: agent-context eval <file> [options]');
  });

  it('reads the other message formats (OpenAI Responses here)', async () => {
    const report = await evaluateJson([fixturePath('formats/openai-responses.json'), '--threshold', '1000000']);
    expect(report.messageFormat).toBe('openai-responses');
    expect(kindOf(report, 'task').kept).toBe(1);
    expect(kindOf(report, 'archive').kept).toBe(1);
  });

  it('reads standard input', async () => {
    const report = await evaluateJson(['-'], { stdin: await readFile(SAMPLE, 'utf8') });
    expect(report.source).toBe('stdin');
  });
});
