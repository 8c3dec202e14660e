import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTemporaryDirectory, hasAnsi, runInProcess } from './cli-helpers.js';

let directory: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  directory = await createTemporaryDirectory('aco-cli-demo-');
});
afterEach(async () => {
  await directory.remove();
});

describe('agent-context demo', () => {
  it('runs count, offload, count, compact (extractive), count offline, each step with its figures', async () => {
    const run = await runInProcess(['demo', '--dir', directory.path]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    const output = run.stdout;
    const headings = output.split('\n').filter((line) => /^\d\. /.test(line));
    expect(headings.map((line) => line.split('  ')[0])).toEqual([
      '1. count',
      '2. offload',
      '3. count',
      '4. compact',
      '5. count',
    ]);
    expect(output).toMatch(/Total {2}\d{2,3},\d{3} tokens/);
    expect(output).toMatch(/offloaded \d+ tool results, [\d,]+ chars, to /);
    expect(output).toMatch(/3\. count.*\n {3}total [\d,]+ tokens in \d+ messages \(-\d+\.\d% from [\d,]+\)/);
    expect(output).toMatch(/window of [\d,]+ tokens sized for this/);
    expect(output).toContain('summarizer: extractive');
    expect(output).toMatch(/restored 5 recently read files \([\d,]+ tokens\)/);
    expect(output).toMatch(/5\. count.*\n {3}total [\d,]+ tokens in 13 messages/);
    expect(output).toContain('[Conversation compressed]');
    expect(hasAnsi(output)).toBe(false);
  });

  it('writes the offloaded results, the project it restores from and the archive under --dir', async () => {
    await runInProcess(['demo', '--dir', directory.path]);
    expect((await readdir(join(directory.path, 'offload'))).length).toBeGreaterThan(10);
    expect(existsSync(join(directory.path, 'invoice-kit', 'src', 'money', 'round.ts'))).toBe(true);
    expect(await readdir(join(directory.path, 'compact', 'default'))).toHaveLength(1);
    const count = await runInProcess(['count', join(directory.path, 'sample-session.json'), '--json']);
    expect(JSON.parse(count.stdout)).toMatchObject({ format: 'json', messageCount: 31 });
  });

  it('closes with a command that counts the sample it wrote', async () => {
    const run = await runInProcess(['demo', '--dir', directory.path]);
    const hint = run.stdout.split('\n').find((line) => line.startsWith('   npx agent-context count '));
    const samplePath = hint?.slice('   npx agent-context count '.length) ?? '';
    expect(samplePath).toBe(join(directory.path, 'sample-session.json'));
    const count = await runInProcess(['count', samplePath]);
    expect(count.exitCode).toBe(0);
    expect(count.stdout).toMatch(/^agent-context count {2}\S*sample-session\.json\n/);
  });

  it('uses a new temporary directory by default, and says where', async () => {
    const run = await runInProcess(['demo']);
    expect(run.exitCode).toBe(0);
    const match = /Everything runs offline; files go to (\S+)/.exec(run.stdout);
    expect(match?.[1]).toMatch(/agent-context-demo-/);
    const created = match?.[1] ?? '';
    try {
      expect(existsSync(join(created, 'offload'))).toBe(true);
    } finally {
      const { rm } = await import('node:fs/promises');
      await rm(created, { recursive: true, force: true });
    }
  });
});
