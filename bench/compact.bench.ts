/**
 * Token counting and compaction benchmarks:
 * - `countTokens` on a ~200K-token, 2,000-message agent history, cold (fresh message objects,
 *   empty cache), against `gpt-tokenizer`'s own `countTokens` on the joined text;
 * - counting again after appending one message (the agent-loop case);
 * - `compactMessages` on a ~1M-char history with an instant LLM client (local overhead: prompt
 *   building, counting, cutting and chunking), against one cold count of that history, and
 *   its peak memory, measured in a child `node --expose-gc` process;
 * - restoring 5 real files.
 *
 * Run directly with `--memory-child`, this file is that child: it prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compactMessages, restoreRecentFiles } from '../src/api/compact.js';
import { countTokens } from '../src/api/tokens.js';
import type { LlmClient, Logger } from '../src/core/ports.js';
import {
  isTextBlock,
  isThinkingBlock,
  isToolResultBlock,
  isToolUseBlock,
  type ContentBlock,
  type Message,
} from '../src/core/types.js';
import { measureMedians, type BenchRow, type BenchRunOptions } from './report.js';
import { createRandom } from '../tests/fixtures/random.js';

export const title = 'Tokens and compaction';

const require = createRequire(import.meta.url);
const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as {
  countTokens(text: string, options?: { disallowedSpecial: Set<string> }): number;
};
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const silentLogger: Logger = { warn: () => undefined };
const RESTORED_FILE_NAMES = ['src/server.ts', 'src/router.ts', 'src/db/schema.ts', 'package.json', 'README.md'];

const WORDS = (
  'the a to of and in is for that with on as it this be are was by not from or at which have an we can all will ' +
  'request response handler server client error value result file path config module function return await async ' +
  'user session token cache index query table column schema migration test build deploy release version update ' +
  'read write open close parse format render route middleware logger metric trace span retry timeout buffer stream'
).split(' ');
const CJK = '上下文压缩将历史消息替换为结构化摘要并恢复最近读取的文件内容以便代理继续工作数据库迁移测试失败原因已修复';

/** Builds an agent history of `turnCount` tool calls whose results average `resultChars` chars. */
export function buildHistory(turnCount: number, resultChars: number, seed = 7): Message[] {
  const random = createRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const identifier = (): string =>
    `${pick(WORDS)}${pick(WORDS).replace(/^./, (first) => first.toUpperCase())}${Math.floor(random() * 100)}`;
  const sentence = (): string =>
    Array.from({ length: 6 + Math.floor(random() * 12) }, () => pick(WORDS)).join(' ') + '.';
  const code = (): string =>
    `export async function ${identifier()}(${identifier()}: string): Promise<number> {\n  const ${identifier()} = await ${identifier()}(${Math.floor(random() * 1000)});\n  return ${identifier()}.length;\n}\n`;
  const json = (): string =>
    `${JSON.stringify({ id: Math.floor(random() * 1e6), name: identifier(), tags: [pick(WORDS), pick(WORDS)], ok: random() > 0.5 })}\n`;
  const prose = (): string => `${sentence()} ${sentence()}\n`;
  const cjk = (): string =>
    `${Array.from({ length: 20 + Math.floor(random() * 30) }, () => CJK[Math.floor(random() * CJK.length)]).join('')}。\n`;
  const shell = (): string =>
    `-rw-r--r--  1 agent staff  ${Math.floor(random() * 99999)} Nov 21 23:45 ${identifier()}.ts\n`;
  // Weighted like a coding agent's transcript: mostly code, prose and shell output.
  const generators: Array<() => string> = [code, code, code, json, json, prose, prose, prose, cjk, shell, shell];
  const fill = (chars: number): string => {
    let text = '';
    const generator = pick(generators);
    while (text.length < chars) text += random() < 0.8 ? generator() : pick(generators)();
    return text.slice(0, chars);
  };
  const messages: Message[] = [{ role: 'system', content: `You are a coding agent. ${sentence()}` }];
  for (let turn = 0; turn < turnCount; turn += 1) {
    const id = `toolu_${String(turn).padStart(6, '0')}`;
    const reads = turn % 10 === 0;
    const input = reads
      ? { path: RESTORED_FILE_NAMES[(turn / 10) % RESTORED_FILE_NAMES.length] }
      : { command: `grep -rn ${identifier()} src` };
    const assistant: ContentBlock[] = [
      { type: 'text', text: sentence() },
      { type: 'tool_use', id, name: reads ? 'read_file' : 'bash', input },
    ];
    messages.push({ role: 'assistant', content: assistant });
    const size = Math.max(20, Math.round(resultChars * (0.2 + random() * 1.6)));
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: fill(size) }] });
  }
  return messages;
}

/** Every string the counter tokenizes, joined: the baseline's input. */
function joinCountedText(messages: readonly Message[]): string {
  const parts: string[] = [];
  const visit = (block: ContentBlock): void => {
    if (isTextBlock(block)) parts.push(block.text);
    else if (isThinkingBlock(block)) parts.push(block.thinking);
    else if (isToolUseBlock(block)) parts.push(block.name, JSON.stringify(block.input));
    else if (isToolResultBlock(block)) {
      const content = block.content;
      if (typeof content === 'string') parts.push(content);
      else content.forEach(visit);
    }
  };
  for (const message of messages) {
    if (typeof message.content === 'string') parts.push(message.content);
    else message.content.forEach(visit);
  }
  return parts.join('\n');
}

const instantClient: LlmClient = {
  summarize: async () => '## Goals & Decisions\nBenchmark summary.\n## Task Status\nContinue.',
};

async function writeRestorableFiles(workDir: string): Promise<void> {
  const random = createRandom(11);
  await mkdir(join(workDir, 'src', 'db'), { recursive: true });
  for (const name of RESTORED_FILE_NAMES) {
    const lines: string[] = [];
    // ~4 KB each, about 1,000 tokens: a typical source file.
    while (lines.join('\n').length < 4000)
      lines.push(
        `export const value${lines.length} = ${Math.floor(random() * 1e6)}; // ${WORDS[lines.length % WORDS.length]}`,
      );
    await writeFile(join(workDir, name), lines.join('\n'));
  }
}

/** Peak live heap (after a full GC) above `base`, sampled where compaction holds the most. */
interface PeakProbe {
  sample(): void;
  readonly extraBytes: number;
}

function createPeakProbe(collect: () => void): PeakProbe {
  collect();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  return {
    sample() {
      collect();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    },
    get extraBytes() {
      return peak - base;
    },
  };
}

/** The peak-memory measurement, run in a child `node --expose-gc` (see the file comment). */
async function measureMemoryInChild(): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with --expose-gc');
  const workDir = await mkdtemp(join(tmpdir(), 'aco-bench-compact-memory-'));
  try {
    await writeRestorableFiles(workDir);
    // The history's own heap: the median of four builds after a warm-up one (which also pays
    // for compiling the generator), each measured between full GCs, all kept alive meanwhile.
    const builds: Message[][] = [];
    const sizes: number[] = [];
    for (let build = 0; build < 5; build += 1) {
      collect();
      const before = process.memoryUsage().heapUsed;
      builds.push(buildHistory(1000, 660));
      collect();
      if (build > 0) sizes.push(process.memoryUsage().heapUsed - before);
    }
    sizes.sort((first, second) => first - second);
    const historyBytes = ((sizes[1] as number) + (sizes[2] as number)) / 2;
    const history = builds.pop() as Message[];
    builds.length = 0;
    countTokens(history); // counted, as an agent loop does before asking whether to compact
    const { NodeFileWriter } = await import('../src/infrastructure/node-file-writer.js');
    const writer = new NodeFileWriter();
    let probe = createPeakProbe(collect);
    // Samples while the archive is written: when it is given whole, and every 100 parts (and
    // after the last) when it is streamed.
    function* probeParts(parts: Iterable<string>): Generator<string, void, undefined> {
      let count = 0;
      for (const part of parts) {
        yield part;
        if (++count % 100 === 0) probe.sample();
      }
      probe.sample();
    }
    const probingWriter = {
      ...writer,
      createExclusive: async (path: string, content: string) => {
        probe.sample(); // the archive text is alive here
        return writer.createExclusive(path, content);
      },
      createExclusiveFromParts: async (path: string, parts: Iterable<string>) =>
        writer.createExclusiveFromParts(path, probeParts(parts)),
    };
    const probingSummarizer = {
      summarize: async () => {
        probe.sample();
        return 'Benchmark summary.';
      },
    };
    const probingClient: LlmClient = {
      summarize: async (prompt, model) => {
        probe.sample(); // the prompt and the rendered Rest are alive here
        return instantClient.summarize(prompt, model);
      },
    };
    const options = { workDir, force: true, fileWriter: probingWriter, logger: silentLogger };
    // Pipeline only (archive, restore, assemble), with a summarizer that needs no prompt.
    const pipelineResult = await compactMessages(history, { ...options, summarizer: probingSummarizer });
    probe.sample();
    const pipelineExtraBytes = probe.extraBytes;
    // Through the LLM summarizer (prompt built, cut and chunked), with an instant client.
    probe = createPeakProbe(collect);
    const llmResult = await compactMessages(history, { ...options, llmClient: probingClient });
    probe.sample();
    if (!pipelineResult.compacted || !llmResult.compacted) throw new Error('compaction did not happen');
    const jsonChars = JSON.stringify(history).length;
    process.stdout.write(
      `${JSON.stringify({ historyBytes, jsonChars, pipelineExtraBytes, llmExtraBytes: probe.extraBytes })}\n`,
    );
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

interface MemoryReport {
  historyBytes: number;
  jsonChars: number;
  pipelineExtraBytes: number;
  llmExtraBytes: number;
}

function runMemoryChild(): Promise<MemoryReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--memory-child'],
      {
        // tsx is resolved from the package root, wherever the bench was started.
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = output.trim().split('\n').at(-1);
      if (code !== 0 || line === undefined) reject(new Error(`memory child exited with ${code}: ${output}`));
      else resolve(JSON.parse(line) as MemoryReport);
    });
  });
}

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];

  // 1. Counting a 200K-token history, cold, against the library on the joined text.
  const history = buildHistory(1000, 500);
  const joined = joinCountedText(history);
  const tokenCount = countTokens(history, { cache: false });
  const libraryCount = reference.countTokens(joined, NO_SPECIAL);
  const counting = await measureMedians(
    {
      'gpt-tokenizer countTokens(joined text)': () => reference.countTokens(joined, NO_SPECIAL),
      // Fresh message objects each run: the per-message cache is empty, as on a first count.
      'countTokens cold': () => countTokens(history.map((message) => ({ ...message }))),
    },
    { ...options, iterations: 20 },
  );
  const coldMs = counting['countTokens cold'] as number;
  const floorMs = counting['gpt-tokenizer countTokens(joined text)'] as number;
  rows.push({
    name: `countTokens, ${history.length.toLocaleString('en-US')} messages, cold`,
    medianMs: coldMs,
    baseline: { name: 'gpt-tokenizer on the joined text', medianMs: floorMs },
    extra: `${tokenCount.toLocaleString('en-US')} tokens; library alone: ${libraryCount.toLocaleString('en-US')}`,
    goal: '<= 1.15x the baseline; < 500 ms',
    met: coldMs <= 1.15 * floorMs && coldMs < 500,
  });

  // 2. The agent loop: the history is counted; one message is appended and counted again.
  countTokens(history);
  const appended: Message = {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_new', content: joined.slice(0, 2000) }],
  };
  const appendedText = joined.slice(0, 2000);
  const appending = await measureMedians(
    {
      'gpt-tokenizer on the new message': () => reference.countTokens(appendedText, NO_SPECIAL),
      'countTokens after append': () => {
        const next = [...history, { ...appended }];
        return countTokens(next);
      },
    },
    { ...options, iterations: 200 },
  );
  const appendMs = appending['countTokens after append'] as number;
  rows.push({
    name: 'countTokens after appending one message (~500 tokens)',
    medianMs: appendMs,
    baseline: {
      name: 'gpt-tokenizer on that message',
      medianMs: appending['gpt-tokenizer on the new message'] as number,
    },
    goal: '<= 1 ms',
    met: appendMs <= 1,
  });

  // 3. compactMessages on a ~1M-char history with an instant LLM client.
  const workDir = await mkdtemp(join(tmpdir(), 'aco-bench-compact-'));
  try {
    await writeRestorableFiles(workDir);
    const large = buildHistory(1000, 660);
    const largeChars = JSON.stringify(large).length;
    const compactOptions = { workDir, force: true, logger: silentLogger };
    const instantSummarizer = { summarize: async () => 'Benchmark summary.' };
    let summaryRequests = 0;
    const countingClient: LlmClient = {
      summarize: (prompt, model) => {
        summaryRequests += 1;
        return instantClient.summarize(prompt, model);
      },
    };
    const check = await compactMessages(large, { ...compactOptions, llmClient: countingClient });
    if (!check.compacted || check.stats.restoredFileCount !== RESTORED_FILE_NAMES.length) {
      throw new Error(`unexpected compaction: ${JSON.stringify(check.stats)} ${check.skippedReason ?? ''}`);
    }
    const compaction = await measureMedians(
      {
        'JSON.stringify(history, null, 2)': () => JSON.stringify(large, null, 2),
        'compactMessages, instant summarizer': () =>
          compactMessages(large, { ...compactOptions, summarizer: instantSummarizer }),
        'compactMessages, instant llmClient': () =>
          compactMessages(large, { ...compactOptions, llmClient: instantClient }),
        'compactMessages, instant summarizer, cold': () =>
          compactMessages(
            large.map((message) => ({ ...message })),
            { ...compactOptions, summarizer: instantSummarizer },
          ),
        // what the LLM path is held to: one count of the same history, cold
        'countTokens cold, same history': () => countTokens(large.map((message) => ({ ...message }))),
      },
      { ...options, iterations: 10 },
    );
    const archiveMs = compaction['JSON.stringify(history, null, 2)'] as number;
    const size = `${(largeChars / 1e6).toFixed(2)}M chars, ${check.stats.originalTokenCount.toLocaleString('en-US')} tokens`;
    const pipelineMs = compaction['compactMessages, instant summarizer'] as number;
    rows.push({
      name: `compactMessages, ${size}, instant summarizer, history counted (agent loop): archive + restore 5 files + assemble`,
      medianMs: pipelineMs,
      baseline: { name: 'JSON.stringify of the history (the archive text alone)', medianMs: archiveMs },
      goal: '<= 100 ms local overhead',
      met: pipelineMs <= 100,
    });
    const llmMs = compaction['compactMessages, instant llmClient'] as number;
    const coldCountMs = compaction['countTokens cold, same history'] as number;
    rows.push({
      name: `compactMessages, same, instant llmClient (+ prompt building, counting, chunking: ${summaryRequests} requests)`,
      medianMs: llmMs,
      baseline: { name: 'countTokens of the same history, cold', medianMs: coldCountMs },
      goal: '<= 100 ms local overhead',
      met: llmMs <= 100,
    });
    // the LLM path's own work: what it adds to the same compaction with a summarizer that needs no prompt
    const summarizerMs = Math.max(0, llmMs - pipelineMs);
    rows.push({
      name: "the LLM summarizer's local work alone (instant llmClient minus instant summarizer)",
      medianMs: summarizerMs,
      baseline: { name: 'countTokens of the same history, cold', medianMs: coldCountMs },
      goal: '<= 1.5x one cold count of the history',
      met: summarizerMs <= 1.5 * coldCountMs,
    });
    const coldCompactionMs = compaction['compactMessages, instant summarizer, cold'] as number;
    rows.push({
      name: 'compactMessages, same, instant summarizer, history never counted (cold)',
      medianMs: coldCompactionMs,
      goal: '< 30 s with the LLM call',
      met: coldCompactionMs < 30_000,
    });

    // 4. Peak memory, in a child process with --expose-gc.
    const memory = await runMemoryChild();
    const historySize = `${megabytes(memory.historyBytes)} heap, ${(memory.jsonChars / 1e6).toFixed(2)}M JSON chars`;
    for (const [label, extraBytes, medianMs] of [
      ['instant summarizer', memory.pipelineExtraBytes, pipelineMs],
      ['instant llmClient', memory.llmExtraBytes, llmMs],
    ] as const) {
      const ratio = extraBytes / memory.historyBytes;
      rows.push({
        name: `compactMessages peak live heap above the history (${label})`,
        medianMs,
        extra: `peak +${megabytes(extraBytes)} = ${ratio.toFixed(2)}x the history's ${historySize}`,
        goal: "<= 1.5x the history's size",
        met: ratio <= 1.5,
      });
    }

    // 5. Restoring 5 real files (~1,000 tokens each).
    const reads: Message[] = RESTORED_FILE_NAMES.map((path, index) => ({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_r${index}`, name: 'read_file', input: { path } }],
    }));
    const restored = await restoreRecentFiles(reads, { workDir, logger: silentLogger });
    if (restored.length !== 5) throw new Error(`restored ${restored.length} files, expected 5`);
    const restoredTokens = restored.reduce(
      (sum, message) => sum + reference.countTokens(String(message.content), NO_SPECIAL),
      0,
    );
    const restoring = await measureMedians(
      {
        'fs.promises.readFile x5': () =>
          Promise.all(RESTORED_FILE_NAMES.map((name) => readFile(join(workDir, name), 'utf8'))),
        restoreRecentFiles: () => restoreRecentFiles(reads, { workDir, logger: silentLogger }),
      },
      { ...options, iterations: 100 },
    );
    const restoreMs = restoring.restoreRecentFiles as number;
    rows.push({
      name: `restoreRecentFiles, 5 real files (~${Math.round(restoredTokens / 5).toLocaleString('en-US')} tokens each)`,
      medianMs: restoreMs,
      baseline: { name: 'fs.promises.readFile x5', medianMs: restoring['fs.promises.readFile x5'] as number },
      goal: '< 10 ms',
      met: restoreMs < 10,
    });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv.includes('--memory-child') && process.argv[1] === fileURLToPath(import.meta.url)) {
  await measureMemoryInChild();
}
