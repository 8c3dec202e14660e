/**
 * The built `agent-context` as a user's shell runs it, for what only a process shows: the exit
 * code, a pipe on standard input, a reader that goes away, Ctrl-C, the modules a command loads,
 * the command `npx` finds. Every other case of the command line runs in process (runInProcess).
 * Part of `npm run test:processes`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/index.js';
import { anthropicMessage, startFakeProviderServer } from '../../fixtures/scripted-llm-server.js';
import type { FakeProviderServer } from '../../fixtures/scripted-llm-server.js';
import { createTemporaryDirectory, fixturePath, REPOSITORY_ROOT, runCli, startCli } from './cli-helpers.js';

let directory: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  directory = await createTemporaryDirectory('aco-cli-process-');
});
afterEach(async () => {
  await directory.remove();
});

describe('agent-context as a process: exit codes', () => {
  it('exits 0 with the version on stdout', async () => {
    const { version } = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await runCli(['--version'])).toEqual({ exitCode: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('exits 2 with the help on stderr when no command is given', async () => {
    const run = await runCli([]);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: agent-context <command>');
  });

  it('exits 1 with one line on stderr when the input cannot be read', async () => {
    const missing = join(directory.path, 'missing.json');
    expect(await runCli(['count', missing])).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `agent-context: cannot read ${missing}: no such file (ENOENT)\n`,
    });
  });
});

describe('agent-context as a process: pipes', () => {
  it('reads the transcript piped to standard input with -', async () => {
    const path = fixturePath('claude-code-session.jsonl');
    const run = await runCli(['count', '-', '--json'], { stdin: await readFile(path, 'utf8') });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ format: 'claude-code', messageCount: 10 });
    expect(run.stdout).toBe((await runCli(['count', path, '--json'])).stdout);
  });

  it('exits 0 without an error when the reader of its output goes away (| head)', async () => {
    // far more than a pipe holds, so that the history is still being written when the reader leaves
    const messages: Message[] = Array.from({ length: 400 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `message ${index} ${'x'.repeat(2_000)}`,
    }));
    const input = join(directory.path, 'long.json');
    await writeFile(input, JSON.stringify(messages));
    const { child, finished } = startCli(['offload', input, '--out', join(directory.path, 'out')]);
    child.stdout.destroy();
    const run = await finished;
    expect(run.exitCode).toBe(0);
    expect(run.stderr).not.toMatch(/EPIPE|Error/);
  });
});

describe('agent-context as a process: Ctrl-C', () => {
  let server: FakeProviderServer;

  beforeEach(async () => {
    server = await startFakeProviderServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('stops a compaction waiting on the model, exits 130 and writes no history', async () => {
    // Ctrl-C once the request has reached the model, which would answer only after a minute
    let interrupt = (): void => undefined;
    server.enqueue('/v1/messages', {
      ...anthropicMessage('## Goals\nnever sent'),
      delayMs: 60_000,
      onReceived: () => interrupt(),
    });
    const { child, finished } = startCli(
      ['compact', fixturePath('messages.json'), '--force', '--provider', 'anthropic', '--base-url', server.origin],
      {
        env: { ANTHROPIC_API_KEY: 'test-key', COMPACT_OUTPUT_DIR: join(directory.path, 'archive') },
      },
    );
    interrupt = () => void child.kill('SIGINT');
    const run = await finished;
    expect(server.requestsTo('/v1/messages')).toHaveLength(1);
    expect(run.exitCode).toBe(130);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/agent-context: interrupted\n$/);
  });
});

describe('agent-context count loads only what it uses', () => {
  it('does not load an LLM SDK, the spinner, compaction or the other commands', async () => {
    const traceFile = join(directory.path, 'modules.txt');
    const hook = pathToFileURL(fixturePath('trace-module-loads.mjs')).href;
    const run = await runCli(['count', fixturePath('claude-code-session.jsonl')], {
      nodeArguments: ['--import', hook],
      env: { MODULE_TRACE_FILE: traceFile },
    });
    expect(run.exitCode).toBe(0);
    const loaded = await readFile(traceFile, 'utf8');
    expect(loaded).toContain('/dist/cli/count.js');
    expect(loaded).toContain('/picocolors/');
    const unwanted = [
      '@anthropic-ai/sdk',
      '/node_modules/openai/',
      '/node_modules/ora/',
      '/dist/cli/compact.js',
      '/dist/cli/demo.js',
      '/dist/cli/sample/',
    ];
    // Nor compaction, summarizers and client wrappers, which the package root would bring.
    unwanted.push(
      '/dist/index.js',
      '/dist/api/compact.js',
      '/dist/core/compact/',
      '/dist/infrastructure/anthropic-client.js',
    );
    for (const unwantedModule of unwanted) {
      expect(loaded).not.toContain(unwantedModule);
    }
  });
});

describe('agent-context demo as a process', () => {
  it('closes with a command that runs as printed in a clone of the repository', async () => {
    const run = await runCli(['demo', '--dir', directory.path]);
    const hint = run.stdout.split('\n').find((line) => line.startsWith('   npx agent-context count '));
    const samplePath = hint?.slice('   npx agent-context count '.length) ?? '';
    expect(samplePath).toBe(join(directory.path, 'sample-session.json'));
    // as the reader types it, from the clone's root: npx finds the repository's own command
    const { stdout } = await promisify(execFile)('npx', ['--no-install', 'agent-context', 'count', samplePath], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(stdout).toMatch(/^agent-context count {2}\S*sample-session\.json\n/);
  });
});
