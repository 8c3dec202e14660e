/**
 * Where `proxy` and `wrap` take each setting from: a flag, else the environment, else the config
 * file (`--config`, or `agent-context.json` in the working directory), else the default; and how
 * the command line refuses a bad file.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCommandArguments } from '../../../src/cli/arguments.js';
import { PROXY_FLAGS, resolveProxySettings } from '../../../src/cli/proxy.js';
import { createTemporaryDirectory, runInProcess } from '../cli/cli-helpers.js';

let directory: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  directory = await createTemporaryDirectory('proxy-config-');
});

afterEach(async () => {
  await directory.remove();
});

/** Writes `text` as a config file in the temp directory and returns its path. */
async function writeConfig(text: string, name = 'settings.jsonc'): Promise<string> {
  const path = join(directory.path, name);
  await writeFile(path, text);
  return path;
}

function resolveWith(args: readonly string[], env: Record<string, string | undefined> = {}) {
  return resolveProxySettings('proxy', parseCommandArguments('proxy', args, PROXY_FLAGS, 0), env);
}

const FILE = `{
  // every proxy setting the precedence tests look at
  "proxy": { "port": 9100, "dir": "from-file", "window": 50000, "upstream": "http://127.0.0.1:9" },
  "offload": { "charThreshold": 700, "excludeTools": ["Read"] },
}`;

describe('proxy settings: flags, then environment, then the config file', () => {
  it('takes from the file what neither a flag nor the environment sets', async () => {
    const config = await writeConfig(FILE);

    const settings = await resolveWith(['--config', config]);

    expect(settings).toMatchObject({
      port: 9100,
      dir: 'from-file',
      window: 50000,
      upstream: 'http://127.0.0.1:9',
      offload: { charThreshold: 700, excludeTools: ['Read'] },
      configPath: config,
    });
  });

  it('puts a flag before the environment and the file', async () => {
    const config = await writeConfig(FILE);

    const settings = await resolveWith(
      ['--config', config, '--window', '30k', '--dir', 'from-flag', '--port', '0', '--upstream', 'http://127.0.0.1:8'],
      { CONTEXT_TOKEN_LIMIT: '80000' },
    );

    expect(settings).toMatchObject({ window: 30000, dir: 'from-flag', port: 0, upstream: 'http://127.0.0.1:8' });
  });

  it('puts the environment before the file', async () => {
    const config = await writeConfig(FILE);

    const settings = await resolveWith(['--config', config], {
      CONTEXT_TOKEN_LIMIT: '80000',
      OFFLOAD_CHAR_THRESHOLD: '2000',
    });

    expect(settings.window).toBe(80000);
    // the library reads no variable: the command puts OFFLOAD_CHAR_THRESHOLD where the file's value was
    expect(settings.offload).toEqual({ charThreshold: 2000, excludeTools: ['Read'] });
  });

  it('takes who opens references from --read-tool, else the file, else the agent’s own tools', async () => {
    const config = await writeConfig('{ "proxy": { "readTool": "proxy" } }');

    expect((await resolveWith([])).readTool).toBe('own-tools');
    expect((await resolveWith(['--config', config])).readTool).toBe('proxy');
    expect((await resolveWith(['--config', config, '--read-tool', 'own-tools'])).readTool).toBe('own-tools');
    await expect(resolveWith(['--read-tool', 'remote'])).rejects.toThrow(
      '--read-tool must be own-tools or proxy, got "remote"',
    );
  });

  it('uses the defaults without a file', async () => {
    const previous = process.cwd();
    process.chdir(directory.path);
    try {
      const settings = await resolveWith([]);
      expect(settings).toMatchObject({ port: 8787, host: '127.0.0.1', dir: '.agent-context', window: undefined });
      expect(settings.configPath).toBeUndefined();
    } finally {
      process.chdir(previous);
    }
  });
});

describe('agent-context proxy with a bad config file', () => {
  it('refuses an unknown key with its path, exit 2, before listening', async () => {
    await writeConfig('{ "proxy": { "uptream": "http://127.0.0.1:1" } }', 'agent-context.json');

    const run = await runInProcess(['proxy'], { cwd: directory.path });

    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'agent-context: agent-context.json: proxy.uptream is not a setting: expected one of port, host, upstream, dir, window, summarizer, workDir, store, readTool, authToken\nRun "agent-context proxy --help" for usage.\n',
    );
  });

  it('refuses an upstream the file names that is not an http(s) URL, naming its key', async () => {
    const config = await writeConfig('{ "proxy": { "upstream": "ftp://host" } }');

    const run = await runInProcess(['proxy', '--config', config], { cwd: directory.path });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `agent-context: ${config}: proxy.upstream must be an http:// or https:// URL without query, fragment or credentials, got "ftp://host"`,
    );
  });

  it('refuses a --config file that does not exist', async () => {
    const run = await runInProcess(['proxy', '--config', 'missing.json'], { cwd: directory.path });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/^agent-context: cannot read the config file missing\.json: ENOENT/);
  });

  it('refuses a file that is not JSON, with the line and column', async () => {
    await writeConfig('{ "proxy": { "port": 8787, } ', 'agent-context.json');

    const run = await runInProcess(['proxy'], { cwd: directory.path });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'agent-context: agent-context.json: not valid JSON (comments and trailing commas allowed): CloseBraceExpected at line 1, column 30',
    );
  });
});
