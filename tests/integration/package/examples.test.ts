/**
 * Every runnable example in `examples/` works offline, as a user would run it after
 * `npm run build`: `npx tsx examples/<name>.ts`. The examples import the package by its name
 * (resolved through package.json's exports to dist/), so this test runs after the build that
 * `npm test` does first. Each runs in an empty temporary directory, so nothing it writes can
 * land in the repository.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const examples = readdirSync(join(root, 'examples'))
  .filter((name) => name.endsWith('.ts'))
  .sort();
const workDir = mkdtempSync(join(tmpdir(), 'aco-examples-'));

/** The test's environment without provider keys, base URLs or server addresses. */
function offlineEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(ANTHROPIC|OPENAI)_(API_KEY|BASE_URL)$|^REDIS_URL$/.test(name)) delete env[name];
  }
  return env;
}

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('examples/ (run offline through the built package)', () => {
  it('has one example per framework and one for the context manager', () => {
    expect(examples).toEqual(
      expect.arrayContaining(['ai-sdk.ts', 'context-manager.ts', 'langchain.ts', 'openai-agents.ts']),
    );
  });

  it.each(examples)(
    '%s exits 0 and prints what it did',
    (name) => {
      const cwd = mkdtempSync(join(workDir, name.replace(/\W/g, '-')));
      // The repository's own tsx, by path: the temporary directory has no node_modules.
      const run = spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'examples', name)], {
        cwd,
        encoding: 'utf8',
        timeout: 90_000,
        // Offline for sure: no key or server address reaches an example that would use one.
        env: { ...offlineEnvironment(), NO_COLOR: '1', OPENAI_AGENTS_DISABLE_TRACING: '1' },
      });
      expect(run.error).toBeUndefined();
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
      expect(run.stdout.trim().length).toBeGreaterThan(0);
    },
    120_000,
  );
});
