/**
 * The CLI reads and writes every message format: the built `agent-context`
 * on sample files typed with each SDK's own message type (tests/fixtures/cli/formats/), as a
 * JSON array and as a request body. `count` detects the format, `offload` and `compact` write
 * the result back in the input's own format and shape, and LangChain's own loaders read the
 * LangChain files back.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from '@langchain/core/load';
import { mapStoredMessagesToChatMessages } from '@langchain/core/messages';
import type { StoredMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextMeasurement } from '../../../src/cli/measure-context.js';
import { createTemporaryDirectory, fixturePath, runInProcess } from './cli-helpers.js';

interface FormatCase {
  file: string;
  shape: 'json' | 'request-body';
  format: string;
  label: string;
  /** The request body field holding the history. */
  historyField?: 'messages' | 'input';
  /** The request body field holding the system prompt. */
  systemField?: 'system' | 'instructions';
}

const CASES: readonly FormatCase[] = [
  {
    file: 'anthropic-body.json',
    shape: 'request-body',
    format: 'anthropic',
    label: 'request body',
    historyField: 'messages',
    systemField: 'system',
  },
  {
    file: 'openai-chat.json',
    shape: 'json',
    format: 'openai-chat',
    label: 'JSON array of messages (OpenAI Chat Completions)',
  },
  {
    file: 'openai-chat-body.json',
    shape: 'request-body',
    format: 'openai-chat',
    label: 'request body (OpenAI Chat Completions)',
    historyField: 'messages',
  },
  {
    file: 'openai-responses.json',
    shape: 'json',
    format: 'openai-responses',
    label: 'JSON array of messages (OpenAI Responses)',
  },
  {
    file: 'openai-responses-body.json',
    shape: 'request-body',
    format: 'openai-responses',
    label: 'request body (OpenAI Responses)',
    historyField: 'input',
    systemField: 'instructions',
  },
  {
    file: 'openai-agents.json',
    shape: 'json',
    format: 'openai-agents',
    label: 'JSON array of messages (OpenAI Agents SDK)',
  },
  { file: 'ai-sdk.json', shape: 'json', format: 'ai-sdk', label: 'JSON array of messages (AI SDK)' },
  {
    file: 'ai-sdk-body.json',
    shape: 'request-body',
    format: 'ai-sdk',
    label: 'request body (AI SDK)',
    historyField: 'messages',
    systemField: 'system',
  },
  {
    file: 'langchain-serialized.json',
    shape: 'json',
    format: 'langchain',
    label: 'JSON array of messages (LangChain)',
  },
  { file: 'langchain-stored.json', shape: 'json', format: 'langchain', label: 'JSON array of messages (LangChain)' },
];

/** First lines of the two tool results of every sample: the file read and the failing test run. */
const FILE_TEXT_START = '/** Week helpers: every week starts on a Monday. */';
const TEST_LOG_START = ' RUN  v3.2.4 /home/dev/app';

function formatFixture(name: string): string {
  return fixturePath(join('formats', name));
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8')) as unknown;
}

/** The history items of a parsed file: the array itself, or the body's history field. */
function itemsOf(value: unknown, testCase: FormatCase): unknown[] {
  return testCase.historyField === undefined
    ? (value as unknown[])
    : ((value as Record<string, unknown>)[testCase.historyField] as unknown[]);
}

function holdsToolResult(item: unknown): boolean {
  const text = JSON.stringify(item);
  return (
    text.includes(JSON.stringify(FILE_TEXT_START).slice(1, -1)) ||
    text.includes(JSON.stringify(TEST_LOG_START).slice(1, -1))
  );
}

let directory: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  directory = await createTemporaryDirectory('aco-cli-formats-');
});
afterAll(async () => {
  await directory.remove();
});

describe('agent-context count detects the message format', () => {
  it.each(CASES)('$file: $format, as $shape', async (testCase) => {
    const run = await runInProcess(['count', formatFixture(testCase.file), '--json']);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout) as ContextMeasurement;
    expect(report).toMatchObject({ format: testCase.shape, messageFormat: testCase.format });
    // Parallel calls and their results, matched by id; a Chat tool message has no tool name, it comes from the call.
    expect(report.byTool).toMatchObject({ read_file: { calls: 1 }, run_command: { calls: 1 } });
    expect(report.largestToolResults.map((result) => [result.toolUseId, result.tool]).sort()).toEqual([
      ['call_read_date', 'read_file'],
      ['call_run_tests', 'run_command'],
    ]);
    expect(report.largestToolResults.map((result) => result.firstLine).sort()).toEqual([
      '/** Week helpers: every week starts on a Monday. */',
      'RUN  v3.2.4 /home/dev/app',
    ]);
  });

  it.each(CASES)('$file: the report names the shape and format', async (testCase) => {
    const run = await runInProcess(['count', formatFixture(testCase.file)]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.split('\n')[1]).toMatch(
      new RegExp(`^${testCase.label.replace(/[()]/g, '\\$&')}, \\d+ messages$`),
    );
  });

  it('counts the tools of a Chat Completions or Responses request body toward the total', async () => {
    for (const name of ['openai-chat-body.json', 'openai-responses-body.json']) {
      const report = JSON.parse(
        (await runInProcess(['count', formatFixture(name), '--json'])).stdout,
      ) as ContextMeasurement;
      expect(report.byRole.tools).toBeGreaterThan(0);
    }
  });
});

describe('agent-context offload writes the history back in its own format and shape', () => {
  it.each(CASES)(
    '$file: only the two tool outputs change, each to a reference; the files hold the results',
    async (testCase) => {
      const out = join(directory.path, `offload-${testCase.file}`);
      const outputFile = join(directory.path, `offloaded-${testCase.file}`);
      const run = await runInProcess(['offload', formatFixture(testCase.file), '--out', out, '-o', outputFile]);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain(`(${testCase.label}, `);
      expect(run.stdout).toContain('offloaded 2 tool results');

      const input = await readJson(formatFixture(testCase.file));
      const output = await readJson(outputFile);
      if (testCase.historyField === undefined) expect(Array.isArray(output)).toBe(true);
      else expect(Object.keys(output as object)).toEqual(Object.keys(input as object));
      const before = itemsOf(input, testCase);
      const after = itemsOf(output, testCase);
      expect(after).toHaveLength(before.length);
      before.forEach((item, index) => {
        if (!holdsToolResult(item)) {
          expect(after[index]).toEqual(item);
          return;
        }
        expect(holdsToolResult(after[index])).toBe(false);
        expect(JSON.stringify(after[index])).toMatch(
          /\[Content offloaded to: \.\/tool-result-call_(read_date|run_tests)\.md\]/,
        );
      });
      const files = (await readdir(out)).filter((name) => name !== '.agent-context-offload').sort();
      expect(files).toEqual(['tool-result-call_read_date.md', 'tool-result-call_run_tests.md']);
      // A result given as content parts (the Agents SDK's { type: 'text' } output) is offloaded as their JSON.
      expect(await readFile(join(out, files[0]!), 'utf8')).toContain('Week helpers: every week starts on a Monday.');
      expect(await readFile(join(out, files[1]!), 'utf8')).toContain('RUN  v3.2.4 /home/dev/app');

      // What was written reads back as the same format.
      const recount = JSON.parse((await runInProcess(['count', outputFile, '--json'])).stdout) as ContextMeasurement;
      expect(recount.messageFormat).toBe(testCase.format);
    },
  );

  it('keeps an error result an error: Anthropic is_error, AI SDK error-text', async () => {
    const anthropicOut = join(directory.path, 'anthropic-error.json');
    await runInProcess([
      'offload',
      formatFixture('anthropic-body.json'),
      '--out',
      join(directory.path, 'error-a'),
      '-o',
      anthropicOut,
    ]);
    const body = (await readJson(anthropicOut)) as { messages: Array<{ content: Array<Record<string, unknown>> }> };
    expect(body.messages[2]?.content[1]).toMatchObject({ tool_use_id: 'call_run_tests', is_error: true });

    const aiSdkOut = join(directory.path, 'ai-sdk-error.json');
    await runInProcess([
      'offload',
      formatFixture('ai-sdk.json'),
      '--out',
      join(directory.path, 'error-b'),
      '-o',
      aiSdkOut,
    ]);
    const messages = (await readJson(aiSdkOut)) as Array<{ content: Array<Record<string, unknown>> }>;
    expect(messages[3]?.content[1]).toMatchObject({
      type: 'tool-result',
      toolCallId: 'call_run_tests',
      output: { type: 'error-text', value: '[Content offloaded to: ./tool-result-call_run_tests.md]' },
    });
  });

  it('writes to standard output in the same format when no -o is given', async () => {
    const run = await runInProcess([
      'offload',
      formatFixture('openai-responses-body.json'),
      '--out',
      join(directory.path, 'stdout-offload'),
    ]);
    expect(run.exitCode).toBe(0);
    const body = JSON.parse(run.stdout) as { instructions: string; input: Array<Record<string, unknown>> };
    expect(body.instructions).toMatch(/^You are a coding agent/);
    expect(body.input.filter((item) => item.type === 'function_call_output').map((item) => item.output)).toEqual([
      '[Content offloaded to: ./tool-result-call_read_date.md]',
      '[Content offloaded to: ./tool-result-call_run_tests.md]',
    ]);
    // Items the canonical model has no place for pass through untouched.
    expect(body.input.find((item) => item.type === 'reasoning')).toMatchObject({
      id: 'rs_01',
      encrypted_content: 'gAAAAB-opaque',
    });
  });
});

describe('agent-context compact writes the history back in its own format and shape', () => {
  let workDir: string;

  beforeAll(async () => {
    // The project the samples work on: compaction restores the file they read.
    workDir = join(directory.path, 'project');
    await mkdir(join(workDir, 'src'), { recursive: true });
    await writeFile(join(workDir, 'src', 'date.ts'), 'export const fixed = true;\n');
  });

  it.each(CASES)(
    '$file: the summary and the restored file are messages of the format; the system prompt stays in place',
    async (testCase) => {
      const outputFile = join(directory.path, `compacted-${testCase.file}`);
      const run = await runInProcess([
        'compact',
        formatFixture(testCase.file),
        '--force',
        '--work-dir',
        workDir,
        '-o',
        outputFile,
      ]);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain(`(${testCase.label}, `);
      expect(run.stdout).toMatch(/summarized \d+ messages, kept 1 system message, restored 1 file/);

      const input = (await readJson(formatFixture(testCase.file))) as Record<string, unknown>;
      const output = await readJson(outputFile);
      if (testCase.historyField !== undefined) {
        const body = output as Record<string, unknown>;
        const { [testCase.historyField]: _history, ...otherFields } = input;
        const { [testCase.historyField]: _written, ...writtenFields } = body;
        expect(writtenFields).toEqual(otherFields);
      }
      const text = JSON.stringify(output);
      expect(text).toContain('[Conversation compressed]');
      expect(text).toContain('[Restored after compact] src/date.ts:');
      expect(itemsOf(output, testCase).some(holdsToolResult)).toBe(false);

      // Read back in its format: the written history is a valid one.
      const recount = await runInProcess(['count', outputFile, '--format', testCase.format, '--json']);
      expect(recount.stderr).toBe('');
      expect(recount.exitCode).toBe(0);
    },
  );

  it('writes LangChain files that LangChain itself loads: stored messages and serialized messages', async () => {
    const compactTo = async (name: string): Promise<string> => {
      const outputFile = join(directory.path, `loaded-${name}`);
      expect(
        (await runInProcess(['compact', formatFixture(name), '--force', '--work-dir', workDir, '-o', outputFile]))
          .exitCode,
      ).toBe(0);
      return outputFile;
    };
    const storedFile = await compactTo('langchain-stored.json');
    const stored = mapStoredMessagesToChatMessages((await readJson(storedFile)) as StoredMessage[]);
    expect(stored.map((message) => message.getType())).toEqual(['system', 'human', 'ai', 'human', 'ai']);
    expect(String(stored[1]?.content)).toMatch(/^\[Conversation compressed\]/);

    const serializedFile = await compactTo('langchain-serialized.json');
    const loaded = await load<Array<{ getType(): string; content: unknown }>>(await readFile(serializedFile, 'utf8'));
    expect(loaded.map((message) => message.getType())).toEqual(['system', 'human', 'ai', 'human', 'ai']);
    expect(String(loaded[3]?.content)).toMatch(/^\[Restored after compact\] src\/date\.ts:/);
  });
});

describe('agent-context --format', () => {
  const plainPath = (): string => join(directory.path, 'plain.json');

  beforeAll(async () => {
    // Plain text turns fit every format: detection takes the package's own.
    await writeFile(
      plainPath(),
      JSON.stringify([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ]),
    );
  });

  it('detects a history that fits several formats as anthropic, and --format names another', async () => {
    const detected = JSON.parse((await runInProcess(['count', plainPath(), '--json'])).stdout) as ContextMeasurement;
    expect(detected.messageFormat).toBe('anthropic');
    const forced = JSON.parse(
      (await runInProcess(['count', plainPath(), '--json', '--format', 'openai-chat'])).stdout,
    ) as ContextMeasurement;
    expect(forced.messageFormat).toBe('openai-chat');
  });

  it('refuses a history that is not in the forced format, naming the index and field (exit 1)', async () => {
    for (const command of ['count', 'offload', 'compact']) {
      const extra = command === 'offload' ? ['--out', join(directory.path, 'never')] : [];
      const run = await runInProcess([command, formatFixture('ai-sdk.json'), '--format', 'openai-chat', ...extra]);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^agent-context: .*ai-sdk\.json: not an openai-chat message: messages\[\d+\]\.\S+: /);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('refuses an unknown name as a usage error (exit 2), listing the names', async () => {
    const run = await runInProcess(['count', plainPath(), '--format', 'cohere']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      'agent-context: --format must be one of anthropic, openai-chat, openai-responses, openai-agents, ai-sdk, langchain, gemini, got "cohere"\nRun "agent-context count --help" for usage.\n',
    );
  });
});

describe('agent-context refuses a history mixing formats', () => {
  it('names the first message that breaks with the ones before it (exit 1), whatever the command', async () => {
    const path = join(directory.path, 'mixed.json');
    await writeFile(
      path,
      JSON.stringify([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'x' } },
          ],
        },
      ]),
    );
    for (const command of [['count'], ['offload', '--out', join(directory.path, 'never')], ['compact']]) {
      const run = await runInProcess([command[0]!, path, ...command.slice(1)]);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `agent-context: ${path}: messages[1]: mixes message formats: this message is ai-sdk, the messages before it are openai-chat\n`,
      );
    }
  });
});
