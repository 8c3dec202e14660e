/**
 * The proxy's live page in a real headless Chromium (Debian's `chromium` package; skipped, with
 * the reason printed, only where /usr/bin/chromium does not exist): a proxy with an auth token in
 * front of a scripted upstream, a session that offloads and compacts, then the page's DOM once
 * its script has fetched the figures: the sessions table, the session view with its requests and
 * summary, and an offloaded result opened. Part of `npm run test:processes`.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumMissing, runChromium } from '../../fixtures/chromium.js';
import { createTemporaryDirectory } from '../cli/cli-helpers.js';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const TOKEN = 'a-token-of-32-characters-0123456';
const AUTH = { 'x-agent-context-token': TOKEN };
const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-key', 'anthropic-version': '2023-06-01' };
const BUILD_LOG = Array.from({ length: 800 }, (_, index) => `[build] step ${index}: compiled module-${index}`).join(
  '\n',
);
// markup in the conversation, which reaches the summary: a page that parsed strings as HTML would make it an element
const MARKUP = '<img src=x id=injected>';

function body(messages: unknown[]): string {
  return JSON.stringify({ model: 'claude-test', max_tokens: 64, system: 'You are a build agent.', messages });
}

/** A build whose log is offloaded, then enough prose for the history to pass a 6,000-token window. */
function history(turns: number): unknown[] {
  const messages: unknown[] = [
    { role: 'user', content: 'Run the build.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'make' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: BUILD_LOG }] },
  ];
  for (let index = 0; index < turns; index += 1)
    messages.push(
      {
        role: 'assistant',
        content: `Step ${index}: ${MARKUP} ${'the module under review keeps its state in a map and flushes it on exit; '.repeat(9)}`,
      },
      { role: 'user', content: `Go on with step ${index + 1}.` },
    );
  return messages;
}

/** The page's DOM once its script has run and its fetches have answered (virtual time waits for them). */
async function dumpDom(url: string, profile: string): Promise<string> {
  const run = await runChromium(['--virtual-time-budget=5000', '--dump-dom', url], profile);
  expect(run.exitCode, run.stderr).toBe(0);
  return run.stdout;
}

/** The text of each cell of the table row that starts at `<tr data-session="...">`. */
function rowCells(dom: string, rowStart: string): string[] {
  const start = dom.indexOf(rowStart);
  expect(start, `${rowStart} in the DOM`).toBeGreaterThan(-1);
  const row = dom.slice(start, dom.indexOf('</tr>', start));
  return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((match) => (match[1] as string).replace(/<[^>]+>/g, ''));
}

let directory: { path: string; remove: () => Promise<void> };
let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  directory = await createTemporaryDirectory('aco-proxy-page-browser-');
  upstream = await startScriptedUpstream((_record, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 100, output_tokens: 5 })),
  );
  proxy = await startProxy(upstream.origin, { authToken: TOKEN, contextTokenLimit: 6000 });
});
afterEach(async () => {
  await proxy.close();
  await upstream.close();
  await directory.remove();
});

if (chromiumMissing)
  console.warn(
    `[skipped] the proxy's page in a browser (tests/integration/proxy/proxy-page-browser.test.ts): ${CHROMIUM} does not exist (apt-get install -y chromium)`,
  );

describe.skipIf(chromiumMissing)("the proxy's live page in headless Chromium", () => {
  it(
    'shows each session with its figures, its requests and summary, and opens an offloaded result',
    { timeout: 120_000 },
    async () => {
      const send = (session: string, turns: number) =>
        sendRaw(proxy.origin, '/v1/messages', {
          headers: { ...HEADERS, ...AUTH, 'x-agent-context-session': session },
          body: body(history(turns)),
        });
      await send('build', 1);
      await send('build', 2);
      await send('build', 24);
      await send('other', 1);
      const detail = JSON.parse(
        (
          await sendRaw(proxy.origin, '/_agent-context/api/sessions/build', { method: 'GET', headers: AUTH })
        ).body.toString('utf8'),
      ) as {
        requests: number;
        offloads: number;
        compactions: number;
        tokensSent: number;
        tokensUnmanaged: number;
        summaries: { text: string }[];
        contents: { kind: string; reference: string }[];
      };
      expect(detail).toMatchObject({ requests: 3, offloads: 1, compactions: 1 });
      const page = `${proxy.origin}/_agent-context/?token=${TOKEN}`;

      const list = await dumpDom(page, join(directory.path, 'list'));
      const cells = rowCells(list, '<tr data-session="build">');
      expect(cells[0]).toBe('build');
      expect(cells[1]).toBe('3');
      expect(cells[2]).toContain(
        `${detail.tokensSent.toLocaleString('en-US')} / ${detail.tokensUnmanaged.toLocaleString('en-US')}`,
      );
      expect(cells[2]).toMatch(/\d+% saved/);
      expect(cells[3]).toMatch(/^\$\d+\.\d+ \/ \$\d+\.\d+/);
      expect(cells.slice(4, 6)).toEqual(['1', '1']);
      expect(list).toContain('<tr data-session="other">');
      expect(list).toMatch(/<span id="status"[^>]*>updated /);

      const session = await dumpDom(`${page}#/sessions/build`, join(directory.path, 'session'));
      const requests = session.slice(
        session.indexOf('<table id="requests"'),
        session.indexOf('</table>', session.indexOf('<table id="requests"')),
      );
      expect(requests.match(/<tr>/g)).toHaveLength(4);
      expect(requests).toContain('direct-offload: 1');
      expect(requests).toMatch(/compact: \d+ -&gt; \d+ tokens/);
      const summaryText = detail.summaries[0]!.text;
      expect(summaryText).toContain(MARKUP);
      const shown = /<pre class="summary">(.*?)<\/pre>/s.exec(session)?.[1] ?? '';
      expect(
        shown
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&'),
      ).toBe(summaryText);
      // the markup is shown as text: escaped in the DOM, never an element
      expect(session).toContain('&lt;img src=x id=injected&gt;');
      expect(session).not.toContain('id="injected"');
      // the markup is shown as text: escaped in the DOM, never an element
      expect(session).toContain('&lt;img src=x id=injected&gt;');
      expect(session).not.toContain('id="injected"');
      const offloaded = detail.contents.find((content) => content.kind === 'offloaded')!;
      expect(session).toContain(`>${offloaded.reference}</a>`);
      expect(session).toContain('<td>archive</td>');

      const opened = await dumpDom(
        `${page}#/sessions/build/content/${encodeURIComponent(offloaded.reference)}`,
        join(directory.path, 'content'),
      );
      expect(opened).toContain('[build] step 799: compiled module-799');
    },
  );
});
