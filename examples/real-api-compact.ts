/**
 * Compacts a sample agent history with a real Anthropic model: the summary is
 * written by the API, the files the agent read are restored from disk, and the stats printed.
 *
 *   ANTHROPIC_API_KEY=sk-ant-... npx tsx examples/real-api-compact.ts
 *
 * Optional: ANTHROPIC_BASE_URL (a proxy or gateway), SUMMARY_MODEL (default
 * claude-haiku-4-5-20251001). Without ANTHROPIC_API_KEY it prints these instructions and
 * exits 0, so it is safe in CI.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnthropicLlmClient } from '../src/anthropic.js';
import { compactMessages, type Message } from '../src/index.js';
import { DEFAULT_SUMMARY_MODEL } from '../src/defaults.js';

const apiKey = process.env.ANTHROPIC_API_KEY?.trim();
if (apiKey === undefined || apiKey === '') {
  console.log(
    [
      'real-api-compact: set ANTHROPIC_API_KEY to compact a sample history with a real model:',
      '',
      '  ANTHROPIC_API_KEY=sk-ant-... npx tsx examples/real-api-compact.ts',
      '',
      'Optional: ANTHROPIC_BASE_URL (proxy or gateway), SUMMARY_MODEL (default ' + DEFAULT_SUMMARY_MODEL + ').',
      'Needs @anthropic-ai/sdk installed (npm install @anthropic-ai/sdk).',
    ].join('\n'),
  );
  process.exit(0);
}

const model = process.env.SUMMARY_MODEL?.trim() || DEFAULT_SUMMARY_MODEL;

// a small project on disk, so that file restoration has something to read back
const workDir = await mkdtemp(join(tmpdir(), 'real-api-compact-'));
await mkdir(join(workDir, 'src'), { recursive: true });
const parser = [
  'export function parseCsv(text: string): string[][] {',
  "  return text.split('\\n').filter((line) => line.trim() !== '').map((line) => line.split(','));",
  '}',
  '',
].join('\n');
await writeFile(join(workDir, 'src/parse.ts'), parser);
await writeFile(join(workDir, 'src/parse.test.ts'), "import { parseCsv } from './parse.js';\n// skips blank lines\n");

const messages: Message[] = [
  { role: 'system', content: 'You are a careful coding agent working in a TypeScript repository.' },
  { role: 'user', content: 'The CSV importer crashes on files with blank lines. Fix it and add a test.' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'I will read the parser first.' },
      { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'src/parse.ts' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01',
        content:
          "export function parseCsv(text: string): string[][] {\n  return text.split('\\n').map((line) => line.split(','));\n}\n",
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Blank lines become [""] rows. Filtering them out.' },
      { type: 'tool_use', id: 'toolu_02', name: 'write_file', input: { path: 'src/parse.ts', content: parser } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_02', content: 'Wrote 3 lines.' }] },
  {
    role: 'assistant',
    content: [
      { type: 'tool_use', id: 'toolu_03', name: 'bash', input: { command: 'npx vitest run src/parse.test.ts' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_03',
        is_error: true,
        content: 'Error: No test found in suite src/parse.test.ts\n    at ...',
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'The test file has no test yet. Reading it before adding one.' },
      { type: 'tool_use', id: 'toolu_04', name: 'read_file', input: { path: 'src/parse.test.ts' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_04',
        content: "import { parseCsv } from './parse.js';\n// skips blank lines\n",
      },
    ],
  },
  {
    role: 'assistant',
    content: 'Next: add an `it("skips blank lines")` test to src/parse.test.ts and run vitest again.',
  },
];

try {
  const llmClient = await createAnthropicLlmClient(); // ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment
  const result = await compactMessages(messages, {
    llmClient,
    summaryModel: model,
    force: true, // the sample is far below the trigger; compact anyway
    workDir,
    resumeMessage: 'Continue with the task.',
  });
  if (!result.compacted) {
    console.error(`Not compacted (${result.skippedReason ?? 'unknown'}):`, result.error);
    process.exitCode = 1;
  } else {
    console.log(`Summary by ${model}:\n\n${result.summary ?? ''}\n`);
    console.log('Compacted history:');
    for (const message of result.messages) {
      const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
      console.log(`  ${message.role.padEnd(9)} ${text.split('\n')[0]?.slice(0, 90)}`);
    }
    console.log('\nStats:', result.stats);
    console.log('Original messages archived at:', result.originalMessagesPath);
    try {
      // the provider's own count of the compacted prompt (messages.countTokens, one request)
      console.log(
        'Tokens of the compacted history, as the API counts them:',
        await llmClient.countTokens(result.messages, model),
      );
    } catch (error) {
      console.log('countTokens is not available here:', error instanceof Error ? error.message : error);
    }
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}
