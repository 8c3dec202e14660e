import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countTokens } from '../../../src/index.js';
import { DEFAULT_SUMMARY_MODEL } from '../../../src/defaults.js';
import type { Message } from '../../../src/index.js';
import {
  anthropicError,
  anthropicMessage,
  chatCompletion,
  startFakeProviderServer,
} from '../../fixtures/scripted-llm-server.js';
import type { FakeProviderServer } from '../../fixtures/scripted-llm-server.js';
import { createTemporaryDirectory, fixturePath, readFixtureMessages, runInProcess } from './cli-helpers.js';

let directory: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  directory = await createTemporaryDirectory('aco-cli-compact-');
});
afterEach(async () => {
  await directory.remove();
});

const SPINNER_FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

function firstLines(messages: readonly Message[]): string[] {
  return messages.map(
    (message) =>
      `${message.role}: ${typeof message.content === 'string' ? (message.content.split('\n', 1)[0] ?? '') : '(blocks)'}`,
  );
}

describe('agent-context compact: the trigger', () => {
  it('below the trigger: prints the history unchanged, says no summarizer ran and why', async () => {
    const run = await runInProcess(['compact', fixturePath('messages.json'), '--work-dir', directory.path]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(await readFixtureMessages('messages.json'));
    expect(run.stderr).toContain('summarizer: none ran (it would be: extractive');
    expect(run.stderr).toContain(
      'not compacted: 1,073 tokens, below the trigger (184,000 = 92.0% of 200,000); --force compacts anyway',
    );
    expect(run.stderr).toContain('history: standard output (JSON array, unchanged)');
    expect(existsSync(join(directory.path, '.compact'))).toBe(false);
  });

  it('--limit sets the window: the fixture (1,073 tokens) reaches 92% of 1,100', async () => {
    const run = await runInProcess([
      'compact',
      fixturePath('messages.json'),
      '--limit',
      '1100',
      '--work-dir',
      directory.path,
    ]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('summarizer: extractive');
    expect(firstLines(JSON.parse(run.stdout) as Message[]).slice(0, 3)).toEqual([
      'system: You are a coding agent. Use the tools to read, run and edit code in /home/dev/app.',
      'user: [Conversation compressed]',
      'assistant: Understood. I have the context from the compressed conversation. Continuing work.',
    ]);
  });

  it('--ratio and CONTEXT_TOKEN_LIMIT set the trigger too', async () => {
    const run = await runInProcess(
      ['compact', fixturePath('messages.json'), '--ratio', '0.5', '--work-dir', directory.path],
      { env: { CONTEXT_TOKEN_LIMIT: '2000' } },
    );
    expect(run.stderr).toMatch(/tokens 1,073 → [\d,]+ \(\d+\.\d% of the original\)/);
  });
});

describe('agent-context compact --force with the extractive summarizer', () => {
  it('summarizes, restores the files read with read_file from --work-dir, archives, and prints the stats', async () => {
    await mkdir(join(directory.path, 'src'), { recursive: true });
    await writeFile(join(directory.path, 'src/date.ts'), 'export const fixed = true;\n');
    const outputFile = join(directory.path, 'compacted.json');
    const run = await runInProcess([
      'compact',
      fixturePath('messages.json'),
      '--force',
      '--work-dir',
      directory.path,
      '-o',
      outputFile,
    ]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    const history = JSON.parse(await readFile(outputFile, 'utf8')) as Message[];
    expect(firstLines(history)).toEqual([
      'system: You are a coding agent. Use the tools to read, run and edit code in /home/dev/app.',
      'user: [Conversation compressed]',
      'assistant: Understood. I have the context from the compressed conversation. Continuing work.',
      'user: [Restored after compact] src/date.ts:',
      'assistant: Noted, file content restored.',
    ]);
    expect(history[3]?.content).toBe('[Restored after compact] src/date.ts:\nexport const fixed = true;\n');
    const stats = run.stdout;
    expect(stats).toContain(
      'summarizer: extractive (offline, deterministic; set ANTHROPIC_API_KEY or pass --provider for an LLM summary)',
    );
    expect(stats).toContain(`tokens 1,073 → ${countTokens(history).toLocaleString('en-US')}`);
    expect(stats).toContain('summarized 10 messages, kept 1 system message, restored 1 file');
    const archives = await readdir(join(directory.path, '.compact', 'default'));
    expect(archives).toHaveLength(1);
    expect(stats).toContain(`archive: ${join(directory.path, '.compact', 'default', archives[0]!)}`);
    expect(JSON.parse(await readFile(join(directory.path, '.compact', 'default', archives[0]!), 'utf8'))).toEqual(
      (await readFixtureMessages('messages.json')).slice(1),
    );
  });

  it('restores what a Claude Code session read with Read (input.file_path)', async () => {
    const project = join(directory.path, 'project');
    await mkdir(join(project, 'src'), { recursive: true });
    await writeFile(join(project, 'src', 'app.ts'), 'console.log("app");\n');
    const line = (fields: Record<string, unknown>): string =>
      JSON.stringify({ isSidechain: false, sessionId: 's', ...fields });
    const log = [
      line({ type: 'user', message: { role: 'user', content: 'Look at app.ts' } }),
      line({
        type: 'assistant',
        message: {
          id: 'm1',
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: join(project, 'src', 'app.ts') } },
          ],
        },
      }),
      line({
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '     1→console.log("app");' }],
        },
      }),
      // A long test log: the history must be worth compacting (a summary no smaller is not written).
      line({
        type: 'assistant',
        message: {
          id: 'm2',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'npm test' } }],
        },
      }),
      line({
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: Array.from({ length: 300 }, (_, index) => ` ✓ test ${index} passes`).join('\n'),
            },
          ],
        },
      }),
      line({
        type: 'assistant',
        message: { id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'It logs "app".' }] },
      }),
    ].join('\n');
    const logPath = join(directory.path, 'session.jsonl');
    await writeFile(logPath, log);
    const run = await runInProcess(['compact', logPath, '--force', '--work-dir', project]);
    expect(run.exitCode).toBe(0);
    const history = JSON.parse(run.stdout) as Message[];
    expect(history[2]?.content).toBe(
      `[Restored after compact] ${join(project, 'src', 'app.ts')}:\nconsole.log("app");\n`,
    );
    expect(run.stderr).toContain('restored 1 file');
    expect(run.stderr).toContain('history: standard output (JSON array of messages)');
  });

  it('says how to restore the files of a Claude Code log, and tries none, without --work-dir', async () => {
    const run = await runInProcess(['compact', fixturePath('claude-code-session.jsonl'), '--force'], {
      cwd: directory.path,
    });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(
      'summarized 10 messages, kept 0 system messages, restored no files (pass --work-dir <project dir> to restore the files the history read)',
    );
    expect(run.stderr).not.toContain('warning');
  });

  it('keeps a request body a request body', async () => {
    const run = await runInProcess([
      'compact',
      fixturePath('request-body.json'),
      '--force',
      '--work-dir',
      directory.path,
    ]);
    const body = JSON.parse(run.stdout) as { system: unknown; tools: unknown[]; model: string; messages: Message[] };
    expect(body.model).toBe('claude-sonnet-4-6');
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a coding agent working in /home/dev/app.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tools).toHaveLength(3);
    expect(firstLines(body.messages).slice(0, 2)).toEqual([
      'user: [Conversation compressed]',
      'assistant: Understood. I have the context from the compressed conversation. Continuing work.',
    ]);
  });
});

describe('agent-context compact with an LLM', () => {
  let server: FakeProviderServer;

  beforeEach(async () => {
    server = await startFakeProviderServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('--provider anthropic: sends the prompt to the model, uses its summary, and says so', async () => {
    server.enqueue('/v1/messages', anthropicMessage('## Goals & Decisions\nFix startOfWeek on Sundays.'));
    const run = await runInProcess(
      [
        'compact',
        fixturePath('messages.json'),
        '--force',
        '--provider',
        'anthropic',
        '--base-url',
        server.origin,
        '--work-dir',
        directory.path,
      ],
      {
        env: { ANTHROPIC_API_KEY: 'test-key' },
      },
    );
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(`summarizer: anthropic ${DEFAULT_SUMMARY_MODEL} at ${server.origin}`);
    expect(run.stderr).not.toMatch(SPINNER_FRAMES);
    const history = JSON.parse(run.stdout) as Message[];
    // the model's summary, then the ledger compaction appends to every summary
    expect(history[1]?.content).toMatch(
      /^\[Conversation compressed\]\n\n## Goals & Decisions\nFix startOfWeek on Sundays\.\n\n## Context Ledger\n/,
    );
    const [request] = server.requestsTo('/v1/messages');
    expect(request?.body.model).toBe(DEFAULT_SUMMARY_MODEL);
    expect(JSON.stringify(request?.body.messages)).toContain('MOST RECENT');
  });

  it('uses Anthropic by default when ANTHROPIC_API_KEY is set (ANTHROPIC_BASE_URL honoured), with --model', async () => {
    const run = await runInProcess(
      [
        'compact',
        fixturePath('messages.json'),
        '--force',
        '--model',
        'claude-test-model',
        '--work-dir',
        directory.path,
      ],
      {
        env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.origin },
      },
    );
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('summarizer: anthropic claude-test-model, ANTHROPIC_API_KEY is set');
    expect(server.requestsTo('/v1/messages')[0]?.body.model).toBe('claude-test-model');
  });

  it('--provider openai with --model and --base-url (any OpenAI-compatible server)', async () => {
    server.enqueue('/v1/chat/completions', chatCompletion('## Goals & Decisions\nFrom the local model.'));
    const run = await runInProcess(
      [
        'compact',
        fixturePath('messages.json'),
        '--force',
        '--provider',
        'openai',
        '--model',
        'qwen-test',
        '--base-url',
        `${server.origin}/v1`,
        '--work-dir',
        directory.path,
      ],
      { env: { OPENAI_API_KEY: 'local' } },
    );
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(`summarizer: openai qwen-test at ${server.origin}/v1`);
    expect((JSON.parse(run.stdout) as Message[])[1]?.content).toMatch(
      /^\[Conversation compressed\]\n\n## Goals & Decisions\nFrom the local model\.\n\n## Context Ledger\n/,
    );
    expect(server.requestsTo('/v1/chat/completions')[0]?.body.model).toBe('qwen-test');
  });

  it('exits 1 with the error when the summarizer fails, and prints no history', async () => {
    server.enqueue('/v1/messages', anthropicError(500, 'api_error'));
    const run = await runInProcess(
      [
        'compact',
        fixturePath('messages.json'),
        '--force',
        '--provider',
        'anthropic',
        '--base-url',
        server.origin,
        '--work-dir',
        directory.path,
      ],
      {
        env: { ANTHROPIC_API_KEY: 'test-key', COMPACT_MAX_RETRIES: '0' },
      },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /agent-context: compaction failed: the summarizer \(anthropic .*\) failed after 1 attempts: /,
    );
  });

  it('does not call the model below the trigger', async () => {
    const run = await runInProcess(
      [
        'compact',
        fixturePath('messages.json'),
        '--provider',
        'anthropic',
        '--base-url',
        server.origin,
        '--work-dir',
        directory.path,
      ],
      {
        env: { ANTHROPIC_API_KEY: 'test-key' },
      },
    );
    expect(run.exitCode).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(run.stderr).toContain('summarizer: none ran (it would be: anthropic');
  });
});

describe('agent-context compact: restoration only from an explicit --work-dir', () => {
  it('restores nothing from the current directory without --work-dir, and says how to restore', async () => {
    // The current directory holds the very file the history read: it must not be pulled in.
    await mkdir(join(directory.path, 'src'), { recursive: true });
    await writeFile(join(directory.path, 'src/date.ts'), 'export const fromTheCurrentDirectory = true;\n');
    const run = await runInProcess(['compact', fixturePath('messages.json'), '--force'], {
      cwd: directory.path,
      env: { MAX_RESTORE_FILES: '5' },
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).not.toContain('fromTheCurrentDirectory');
    expect(firstLines(JSON.parse(run.stdout) as Message[])).toEqual([
      'system: You are a coding agent. Use the tools to read, run and edit code in /home/dev/app.',
      'user: [Conversation compressed]',
      'assistant: Understood. I have the context from the compressed conversation. Continuing work.',
    ]);
    expect(run.stderr).toContain(
      'summarized 10 messages, kept 1 system message, restored no files (pass --work-dir <project dir> to restore the files the history read)',
    );
  });

  it('restores from the current directory when it is named: --work-dir .', async () => {
    await mkdir(join(directory.path, 'src'), { recursive: true });
    await writeFile(join(directory.path, 'src/date.ts'), 'export const fromTheCurrentDirectory = true;\n');
    const run = await runInProcess(['compact', fixturePath('messages.json'), '--force', '--work-dir', '.'], {
      cwd: directory.path,
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('fromTheCurrentDirectory');
    expect(run.stderr).toContain('restored 1 file (');
  });

  it.each([
    [
      'a missing directory',
      'missing',
      (dir: string) => `--work-dir ${join(dir, 'missing')}: no such directory (ENOENT)`,
    ],
    ['a file', 'file.txt', (dir: string) => `--work-dir ${join(dir, 'file.txt')}: not a directory`],
  ])('exits 2 for %s, naming it, before reading or writing anything', async (_, name, message) => {
    await writeFile(join(directory.path, 'file.txt'), 'not a directory');
    const outputFile = join(directory.path, 'out.json');
    const run = await runInProcess([
      'compact',
      join(directory.path, 'no-such-input.json'),
      '--force',
      '--work-dir',
      join(directory.path, name),
      '-o',
      outputFile,
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `agent-context: ${message(directory.path)}\nRun "agent-context compact --help" for usage.\n`,
    );
    expect((await readdir(directory.path)).sort()).toEqual(['file.txt']);
  });

  it('-o may name the input itself: the file is replaced whole, atomically', async () => {
    const path = join(directory.path, 'h.json');
    await writeFile(path, await readFile(fixturePath('messages.json')));
    const run = await runInProcess(['compact', path, '--force', '--work-dir', directory.path, '-o', path]);
    expect(run.exitCode).toBe(0);
    const history = JSON.parse(await readFile(path, 'utf8')) as Message[];
    expect(firstLines(history).slice(0, 2)).toEqual([
      'system: You are a coding agent. Use the tools to read, run and edit code in /home/dev/app.',
      'user: [Conversation compressed]',
    ]);
    expect((await readdir(directory.path)).sort()).toEqual(['.compact', 'h.json']);
  });
});

describe('agent-context compact: usage errors', () => {
  it.each([
    [['--provider', 'openai'], '--provider openai needs --model (or SUMMARY_MODEL)'],
    [['--model', 'x'], '--model needs an LLM: pass --provider anthropic or openai (or set ANTHROPIC_API_KEY)'],
    [['--provider', 'extractive', '--base-url', 'http://localhost:1'], '--base-url needs an LLM'],
    [['--limit', '0'], '--limit must be an integer >= 1, got "0"'],
    [['--ratio', '2'], '--ratio must be a number in [0, 1], got "2"'],
    [['--limit', '-5'], '--limit must be an integer >= 1, got "-5"'],
    [['--ratio=-0.5'], '--ratio must be a number in [0, 1], got "-0.5"'],
    [['--limit', '0x100000'], '--limit must be an integer >= 1, got "0x100000"'],
  ])('%j exits 2', async (flags, message) => {
    const run = await runInProcess(['compact', fixturePath('messages.json'), ...flags]);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });
});

describe('agent-context compact: an archive that cannot be written (issue: hostile input)', () => {
  it('exits 1 saying the compaction was skipped, and writes no output', async () => {
    const blocker = join(directory.path, 'blocker');
    await writeFile(blocker, 'a file where the archive directory should go');
    const output = join(directory.path, 'out.json');
    const run = await runInProcess(
      ['compact', fixturePath('messages.json'), '--force', '--work-dir', directory.path, '-o', output],
      {
        env: { COMPACT_OUTPUT_DIR: join(blocker, 'archive') },
      },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('compaction skipped: the archive of the compacted messages could not be written');
    expect(existsSync(output)).toBe(false);
  });
});
