/**
 * The read-back in flight survives a compaction through the proxy: an agent loop on the real
 * Anthropic SDK, in a 24,000-token window, `cat`s a reference it was given when its history is
 * close to the trigger, and the output (over three quarters of the trigger) makes it cross. The
 * request that carries it reaches the upstream compacted, with the call and its result after
 * the summary (the result cut to its reference, how to page through it, its head and tail), and
 * ends on the user's turn, never on the summary's acknowledgement.
 */
import Anthropic from '@anthropic-ai/sdk';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const WINDOW = 24_000;
/** The reference document the agent prints first: 40,000 characters of short option lines. */
const DOCUMENT = Array.from(
  { length: 1200 },
  (_, index) => `option.${index}: parser mode ${index % 7}, default ${index * 3}`,
)
  .join('\n')
  .slice(0, 40_000);
const REFERENCE = /^\[(?:Content|Tool result) offloaded to(?: file)?: ([^\]]+)\]/;

type Block = Anthropic.ContentBlockParam;
type Sent = { role: string; content: string | (Block & { content?: unknown; id?: string })[] };

/** The tool result for `id` in a sent history, if any. */
function resultFor(messages: readonly Sent[], id: string): string | undefined {
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content)
      if (block.type === 'tool_result' && block.tool_use_id === id) return String(block.content);
  }
  return undefined;
}

function prose(turn: number): string {
  return `Turn ${turn}: the parser keeps its options in a table and reads them on start; `.repeat(26);
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  // the model: prints the document, talks while the history grows, cats the document's
  // reference once the history is within a thousand tokens of the trigger, then is done
  let turn = 0;
  let catIssued = false;
  upstream = await startScriptedUpstream((record, response) => {
    const messages = (record.body?.messages ?? []) as Sent[];
    const event = proxy.events.at(-1);
    const usage = { input_tokens: event?.stats?.tokensAfter ?? 100, output_tokens: 10 };
    const reply = (content: unknown[], stop = 'tool_use'): void =>
      sendJson(response, anthropicBody(content, usage, stop));
    if (resultFor(messages, 'toolu_cat') !== undefined) return reply([{ type: 'text', text: 'Done.' }], 'end_turn');
    if (resultFor(messages, 'toolu_doc') === undefined)
      return reply([{ type: 'tool_use', id: 'toolu_doc', name: 'Bash', input: { command: 'cat docs/reference.md' } }]);
    const reference = REFERENCE.exec(resultFor(messages, 'toolu_doc') ?? '')?.[1];
    const stats = event?.stats;
    if (
      !catIssued &&
      reference !== undefined &&
      stats !== undefined &&
      stats.tokensAfter >= stats.triggerTokens - 1000
    ) {
      catIssued = true;
      return reply([{ type: 'tool_use', id: 'toolu_cat', name: 'Bash', input: { command: `cat '${reference}'` } }]);
    }
    turn += 1;
    return reply([
      { type: 'text', text: prose(turn) },
      { type: 'tool_use', id: `toolu_ls_${turn}`, name: 'Bash', input: { command: `ls src/part-${turn}` } },
    ]);
  });
  proxy = await startProxy(upstream.origin, {
    contextTokenLimit: WINDOW,
    offload: { timing: 'as-they-age' },
    summarizer: 'extractive',
  });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

/** Runs one command of the scripted model as the agent's shell would. */
async function run(command: string): Promise<string> {
  if (command === 'cat docs/reference.md') return DOCUMENT;
  const path = /^cat '(.+)'$/.exec(command)?.[1];
  if (path !== undefined) return readFile(path, 'utf8');
  return 'index.ts\nparser.ts\noptions.ts';
}

describe('a read-back in flight through the proxy', () => {
  it('follows the summary, cut to fit, and the request ends on the user, at a 24,000-token window', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-one', baseURL: proxy.origin, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Configure the parser as the reference says.' },
    ];
    // the request that carries the output of the cat
    let index = -1;
    for (let step = 0; step < 80; step += 1) {
      if (index === -1 && resultFor(messages as Sent[], 'toolu_cat') !== undefined) index = upstream.requests.length;
      const reply = await client.messages.create({ model: 'claude-test', max_tokens: 1024, messages });
      messages.push({ role: 'assistant', content: reply.content });
      const calls = reply.content.filter((block) => block.type === 'tool_use');
      if (calls.length === 0) break;
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const call of calls)
        results.push({
          type: 'tool_result',
          tool_use_id: call.id,
          content: await run((call.input as { command: string }).command),
        });
      messages.push({ role: 'user', content: results });
    }

    expect(index).toBeGreaterThan(0);
    const sent = upstream.requests[index]!.body!.messages as Sent[];
    const event = proxy.events[index]!;
    expect(event.actions.map((action) => action.type)).toContain('compact');
    // the output the agent asked for: over three quarters of the trigger by itself
    expect(resultFor(messages as Sent[], 'toolu_cat')).toBe(DOCUMENT);
    const grown = event.stats!.tokensBefore - proxy.events[index - 1]!.stats!.tokensAfter;
    expect(grown).toBeGreaterThan(0.75 * event.stats!.triggerTokens);

    expect(sent.at(-1)?.role).toBe('user');
    expect(sent.at(-2)?.content).toEqual([expect.objectContaining({ type: 'tool_use', id: 'toolu_cat' })]);
    expect(JSON.stringify(sent.slice(0, -2))).toContain('[Conversation compressed]');
    const shown = resultFor(sent, 'toolu_cat')!;
    const stored = /^\[Tool result offloaded to file: ([^\]]+)\]\n/.exec(shown)?.[1];
    expect(await readFile(stored!, 'utf8')).toBe(DOCUMENT);
    expect(shown).toMatch(/\nRead in pages \(\d+ lines, about \d+ lines a page\): pass an offset and a limit/);
    expect(shown).toContain(DOCUMENT.slice(0, 200));
    expect(shown).toContain(DOCUMENT.slice(-200));
    expect(event.stats!.tokensAfter).toBeLessThan(event.stats!.triggerTokens);
  });
});
