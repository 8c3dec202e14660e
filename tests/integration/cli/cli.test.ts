import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTemporaryDirectory, fixturePath, REPOSITORY_ROOT, runInProcess } from './cli-helpers.js';

const packageVersion = (JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

describe('agent-context: help and version', () => {
  it('prints the version from package.json', async () => {
    const run = await runInProcess(['--version']);
    expect(run).toMatchObject({ exitCode: 0, stdout: `${packageVersion}\n`, stderr: '' });
  });

  it('prints the main help with every command', async () => {
    const run = await runInProcess(['--help']);
    expect(run.exitCode).toBe(0);
    for (const command of ['count <file>', 'offload <file>', 'compact <file>', 'demo'])
      expect(run.stdout).toContain(command);
  });

  it.each(['count', 'offload', 'compact', 'demo'])(
    'prints the help of %s, with or without other arguments',
    async (command) => {
      const run = await runInProcess([command, '--help']);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: agent-context ${command}`));
      expect((await runInProcess(['help', command])).stdout).toBe(run.stdout);
      expect((await runInProcess([command, 'some-file.json', '-h'])).stdout).toBe(run.stdout);
    },
  );

  it('runs through the bin path (shebang, executable)', () => {
    const packageJson = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    const entry = readFileSync(join(REPOSITORY_ROOT, packageJson.bin['agent-context'] ?? ''), 'utf8');
    expect(entry.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});

describe('agent-context: usage errors exit 2 with one line', () => {
  it.each([
    [[], /^agent-context: see where/],
    [
      ['frobnicate'],
      /^agent-context: unknown command "frobnicate" \(commands: count, offload, compact, prune, demo, replay, eval, proxy, wrap\)\n/,
    ],
    [['--frobnicate'], /^agent-context: unknown option --frobnicate\n/],
    [
      ['count'],
      /^agent-context: missing <file> \(a path, or - for standard input\)\nRun "agent-context count --help" for usage\.\n$/,
    ],
    [['count', 'a.json', 'b.json'], /^agent-context: unexpected argument "b.json"\n/],
    [['count', 'a.json', '--nope'], /^agent-context: unknown option --nope\n/],
    [['count', 'a.json', '--limit'], /^agent-context: --limit needs a value\n/],
    [['count', 'a.json', '--json=yes'], /^agent-context: --json does not take a value\n/],
    [['count', 'a.json', '--limit', '12k'], /^agent-context: --limit must be an integer >= 1, got "12k"\n/],
    [['offload', 'a.json'], /^agent-context: missing --out <dir> \(where the offloaded results go\)\n/],
    [
      ['compact', 'a.json', '--provider', 'gemini'],
      /^agent-context: --provider must be one of anthropic, openai, extractive, got "gemini"\n/,
    ],
    [['demo', 'extra'], /^agent-context: unexpected argument "extra"\n/],
    [['proxy', '--uptream', 'http://127.0.0.1:9'], /^agent-context: unknown option --uptream\n/],
  ])('%j', async (args, message) => {
    const run = await runInProcess(args);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it("reports a flag value out of the library's range as a usage error, naming the flag", async () => {
    const run = await runInProcess(['count', fixturePath('messages.json'), '--ratio-threshold', '1.5']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      'agent-context: --ratio-threshold must be a number in [0, 1], got "1.5"\nRun "agent-context count --help" for usage.\n',
    );
  });

  it('reports an invalid environment variable as a usage error, naming it', async () => {
    const run = await runInProcess(['count', fixturePath('messages.json')], {
      env: { OFFLOAD_CHAR_THRESHOLD: 'lots' },
    });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/^agent-context: OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "lots"\n$/);
  });

  it.each(['0x10', '0b1', '0o7', '1_000'])(
    'reads environment numbers in decimal notation only: OFFLOAD_CHAR_THRESHOLD=%s exits 2',
    async (value) => {
      const run = await runInProcess(['count', fixturePath('messages.json')], {
        env: { OFFLOAD_CHAR_THRESHOLD: value },
      });
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toBe(`agent-context: OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "${value}"\n`);
    },
  );
});

describe('agent-context: negative and non-decimal numbers', () => {
  it.each([
    [['offload', 'x.json', '--out', 'o', '--char-threshold', '-5'], '--char-threshold must be a number >= 1, got "-5"'],
    [['offload', 'x.json', '--out', 'o', '--char-threshold=-5'], '--char-threshold must be a number >= 1, got "-5"'],
    [
      ['offload', 'x.json', '--out', 'o', '--char-threshold', '0x10'],
      '--char-threshold must be a number >= 1, got "0x10"',
    ],
    [
      ['offload', 'x.json', '--out', 'o', '--ratio-threshold', '-0.1'],
      '--ratio-threshold must be a number in [0, 1], got "-0.1"',
    ],
    [['count', 'x.json', '--char-threshold', '-5'], '--char-threshold must be a number >= 1, got "-5"'],
    [['count', 'x.json', '--limit', '-5'], '--limit must be an integer >= 1, got "-5"'],
    [['compact', 'x.json', '--ratio', '-1'], '--ratio must be a number in [0, 1], got "-1"'],
    [['compact', 'x.json', '--limit=-200000'], '--limit must be an integer >= 1, got "-200000"'],
  ])('%j exits 2 naming the flag and its bound', async (args, message) => {
    const [command] = args;
    const run = await runInProcess(args);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`agent-context: ${message}\nRun "agent-context ${command} --help" for usage.\n`);
  });
});

describe('agent-context: a Claude Code log still being written', () => {
  it('reads it without its cut-off last line and warns on stderr, naming the file and line', async () => {
    const directory = await createTemporaryDirectory('aco-cli-live-');
    try {
      const whole = readFileSync(fixturePath('claude-code-session.jsonl'), 'utf8');
      const path = join(directory.path, 'live.jsonl');
      // The last line (26, a file-history-snapshot) cut in the middle, as a writer leaves it.
      writeFileSync(path, whole.slice(0, whole.trimEnd().lastIndexOf('\n') + 60));
      const run = await runInProcess(['count', path, '--json']);
      expect(run.exitCode).toBe(0);
      expect(run.stderr).toBe(
        `warning: ${path}: line 26: skipped the last line, cut off mid-JSON (a log still being written?)\n`,
      );
      expect(JSON.parse(run.stdout)).toMatchObject({ format: 'claude-code', messageCount: 10 });
    } finally {
      await directory.remove();
    }
  });
});

describe('agent-context: bad input exits 1 with one clear line', () => {
  it.each([
    ['missing.json', 'agent-context: cannot read MISSING: no such file (ENOENT)'],
    [
      'bad-json.json',
      'agent-context: FILE: invalid JSON at line 3, column 43: unexpected "}", expected a property name',
    ],
    [
      'bad-json-truncated.json',
      'agent-context: FILE: invalid JSON at line 4, column 1: unexpected end of input, expected "}"',
    ],
    [
      'bad-jsonl.jsonl',
      'agent-context: FILE: invalid JSON at line 3, column 54: unexpected "\\"tool_use_id\\"", expected ","',
    ],
    [
      'unknown-format.txt',
      'agent-context: FILE: unknown format: the input starts with "user: The startOfWeek te...", not JSON;',
    ],
    ['unknown-object.json', 'agent-context: FILE: unknown format: a JSON object without "messages";'],
    [
      'not-a-message.json',
      'agent-context: FILE: not a message: messages[2].role: expected "system", "user" or "assistant", got "tool"',
    ],
    [
      'not-a-message.jsonl',
      'agent-context: FILE: line 3: not a message: messages[2].content[0].tool_use_id: expected a string, got 42',
    ],
  ])('%s', async (name, expected) => {
    for (const command of [['count'], ['offload', '--out', '/nonexistent/never-written'], ['compact']]) {
      const [verb, ...flags] = command as [string, ...string[]];
      const path = fixturePath(name);
      const run = await runInProcess([verb, path, ...flags]);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      const line = expected.replace('MISSING', path).replace('FILE', path);
      expect(run.stderr.startsWith(line)).toBe(true);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('reports a directory given as the file', async () => {
    const run = await runInProcess(['count', fixturePath('')]);
    expect(run).toMatchObject({ exitCode: 1, stderr: expect.stringMatching(/: is a directory \(EISDIR\)\n$/) });
  });

  it('reports empty standard input', async () => {
    const run = await runInProcess(['count', '-'], { stdin: '' });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^agent-context: stdin: empty input;/);
  });

  it('prints the stack only with --debug', async () => {
    const plain = await runInProcess(['count', fixturePath('bad-json.json')]);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await runInProcess(['count', fixturePath('bad-json.json'), '--debug']);
    expect(debug.exitCode).toBe(1);
    expect(debug.stderr).toMatch(/^agent-context: .*invalid JSON at line 3, column 43/);
    expect(debug.stderr).toMatch(/\n\s+at parseJson \(/);
    expect(debug.stderr).toMatch(/Caused by: SyntaxError/);
    expect((await runInProcess(['--debug', 'count', fixturePath('bad-json.json')])).stderr).toMatch(/\n\s+at /);
  });
});
