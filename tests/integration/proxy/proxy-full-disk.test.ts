/**
 * The proxy on a disk that fills up mid-session (a real tmpfs of 2 MB, filled to ENOSPC): the
 * session keeps its decisions (the compacted history and the results offloaded before go out
 * as they went before), new results wait inline, a request still over the window says so
 * (`outcome: 'over-window'` and a log line), and once the disk has room again the session is
 * compacted as usual. Mounting needs root; elsewhere the suite is skipped with its reason.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

/** A 2 MB tmpfs for the suite, or why there is none. */
function mountSmallDisk(): { dir: string } | { skipReason: string } {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'ignore' });
    return { dir };
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return { skipReason: 'a tmpfs cannot be mounted here (needs root): the full-disk proxy suite is skipped' };
  }
}

const disk = mountSmallDisk();
const skipReason = 'skipReason' in disk ? disk.skipReason : undefined;
if (skipReason !== undefined) console.warn(skipReason);

afterAll(() => {
  if (!('dir' in disk)) return;
  try {
    execFileSync('umount', [disk.dir], { stdio: 'ignore' });
  } catch {
    // still busy (a handle the proxy had open): detached now, gone once it is closed
    execFileSync('umount', ['-l', disk.dir], { stdio: 'ignore' });
  }
  rmSync(disk.dir, { recursive: true, force: true });
});

/** Fills the disk with one file until the next write fails with ENOSPC; resolves its path. */
function fillDisk(dir: string): string {
  const filler = join(dir, 'filler');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) appendFileSync(filler, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  // what a block left: the last bytes too
  try {
    for (;;) appendFileSync(filler, Buffer.alloc(512, 1));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  return filler;
}

const HEADERS = {
  'content-type': 'application/json',
  'x-api-key': 'sk-ant-agent-key',
  'anthropic-version': '2023-06-01',
};

function rows(id: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${id} row ${index}: value ${index * 7}`).join('\n');
}

function toolTurn(id: string, result: string): unknown[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `dump ${id}` } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
}

function prose(turn: number): string {
  return `Turn ${turn}: ${'the exporter batches rows and retries a failed flush twice; '.repeat(20)}`;
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

afterEach(async () => {
  await proxy?.close();
  await upstream?.close();
});

describe.skipIf(skipReason !== undefined)('the proxy on a disk that fills up', () => {
  it('keeps the compacted history and the offloaded results, holds new ones inline, and says when a request is over the window', async () => {
    const dir = (disk as { dir: string }).dir;
    upstream = await startScriptedUpstream((_record, response) =>
      sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 100, output_tokens: 5 })),
    );
    proxy = await startProxy(upstream.origin, {
      dir: join(dir, 'store'),
      contextTokenLimit: 6000,
      offload: { directThreshold: 1000 },
    });
    const history: unknown[] = [{ role: 'user', content: 'Export the tables.' }];
    const send = async (): Promise<unknown[]> => {
      const reply = await sendRaw(proxy.origin, '/v1/messages', {
        headers: HEADERS,
        body: JSON.stringify({ model: 'claude-test', max_tokens: 64, messages: history }),
      });
      expect(reply.status).toBe(200);
      return upstream.requests.at(-1)?.body?.messages as unknown[];
    };

    // a session until its first compaction, then one more result offloaded after it
    for (let turn = 0; !proxy.events.some((event) => event.actions.some((a) => a.type === 'compact')); turn += 1) {
      expect(turn).toBeLessThan(30);
      history.push({ role: 'user', content: prose(turn) }, { role: 'assistant', content: 'ok' });
      await send();
    }
    history.push({ role: 'user', content: 'Dump t2.' }, ...toolTurn('t2', rows('t2', 200)));
    const before = await send();
    const t2Reference = JSON.stringify(before.at(-1));
    expect(t2Reference).toContain('offloaded to');

    const filler = fillDisk(dir);
    const sentWhileFull: unknown[][] = [];
    for (let turn = 0; turn < 6; turn += 1) {
      history.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: `Dump t3-${turn}.` });
      history.push(...toolTurn(`t3-${turn}`, rows(`t3-${turn}`, 120)));
      sentWhileFull.push(await send());
    }
    const fullEvents = proxy.events.slice(-6);

    for (const sent of sentWhileFull) {
      expect(sent.slice(0, before.length - 1)).toEqual(before.slice(0, -1));
      expect(JSON.stringify(sent[before.length - 1])).toBe(t2Reference);
      expect(JSON.stringify(sent)).not.toContain('t2 row 100');
    }
    expect(fullEvents.map((event) => event.outcome)).not.toContain('fail-open');
    expect(JSON.stringify(sentWhileFull[0])).toContain('t3-0 row 100');
    expect(fullEvents[0]?.actions.map((action) => action.type)).toContain('writes-deferred');
    expect(fullEvents.map((event) => event.outcome)).toContain('over-window');
    expect(proxy.warnings.some((warning) => warning.includes('still over the window'))).toBe(true);

    rmSync(filler);
    let outcome: string | undefined;
    for (let turn = 0; turn < 12 && outcome !== 'managed'; turn += 1) {
      history.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: `Again ${turn}.` });
      await send();
      outcome = proxy.events.at(-1)?.outcome;
    }
    expect(outcome).toBe('managed');
    expect(proxy.events.at(-1)?.actions.map((action) => action.type)).not.toContain('writes-deferred');
  });
});
