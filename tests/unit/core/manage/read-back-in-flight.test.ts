/**
 * A compaction keeps the read-back in flight: an agent that opens a reference it was given (a
 * 22,875-character one, line-numbered by its file tool) in a small window gets the summary,
 * then its call and the result it asked for, never the summary's acknowledgement as the last
 * message. Through `createContextManager`, as an application uses it.
 */
import { describe, expect, it } from 'vitest';
import { createContextManager } from '../../../../src/api/context-manager.js';
import type { ContextAction } from '../../../../src/core/manage/types.js';
import type { ContentBlock, Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';

/** Two characters a token: numbered lines and identifiers count about so. */
const denseCounter = { count: (text: string): number => Math.ceil(text.length / 2) };

/** A reference document of exactly `chars` characters, in lines of about 50. */
function referenceDocument(chars: number): string {
  const lines: string[] = [];
  for (let index = 1; lines.join('\n').length < chars; index += 1)
    lines.push(`option.${index}: parser mode ${index % 7}, default ${index * 3}`);
  return lines.join('\n').slice(0, chars);
}

const DOCUMENT = referenceDocument(22_875);
/** What a file tool returns for it: the lines numbered as `cat -n` does. */
const NUMBERED = DOCUMENT.split('\n')
  .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
  .join('\n');

function prose(chars: number, topic: string): string {
  return `We discussed ${topic} at length. `.repeat(Math.ceil(chars / (topic.length + 29))).slice(0, chars);
}

/** The task, then the reference printed by a shell. */
const OPENING: Message[] = [
  { role: 'user', content: 'Configure the parser as the reference says.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_cat', name: 'Bash', input: { command: 'cat docs/reference.md' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_cat', content: DOCUMENT }] },
];

/** Talk that brings a history to about the trigger of `window` (at 1.5 provider tokens per local token). */
function talkFor(window: number): Message[] {
  const chars = Math.floor((((window * 0.92) / 1.5) * 2) / 8);
  return ['the parser', 'the options', 'the defaults', 'the tests'].flatMap((topic): Message[] => [
    { role: 'assistant', content: prose(chars, topic) },
    { role: 'user', content: prose(chars, `${topic}, again`) },
  ]);
}

function resultOf(message: Message | undefined): string {
  const block = (message?.content as ContentBlock[])[0] as { type: string; content: string };
  expect(block.type).toBe('tool_result');
  return block.content;
}

function actionTypes(actions: readonly ContextAction[]): string[] {
  return actions.map((action) => action.type);
}

describe('a compaction with a read-back in flight', () => {
  for (const window of [12_000, 14_000, 16_000]) {
    it(`keeps the read call and its result after the summary, the request ending on the user (${window} tokens)`, async () => {
      const store = createMemoryStore();
      const manager = createContextManager({
        store,
        sessionId: 's1',
        contextTokenLimit: window,
        tokenCounter: denseCounter,
        logger: { warn: () => undefined },
      });
      const first = await manager.prepare(OPENING);
      // the reference the agent was given for the printed document
      const reference = /offloaded to file: ([^\]]+)\]/.exec(JSON.stringify(first.messages))?.[1];
      expect(reference).toBeDefined();
      const history = [...OPENING, ...talkFor(window)];
      const call: Message = {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading the reference.' },
          { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: reference } },
        ],
      };
      const readBack: Message = {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: NUMBERED }],
      };

      const result = await manager.prepare([...history, call, readBack]);
      const sent = result.messages;

      expect(actionTypes(result.actions)).toContain('compact');
      expect(sent.at(-1)?.role).toBe('user');
      expect(sent.at(-2)).toEqual(call);
      expect(sent.at(-3)).toMatchObject({
        role: 'user',
        content: expect.stringContaining('[Conversation compressed]'),
      });
      const shown = resultOf(sent.at(-1));
      // too large to follow a summary whole: its reference, how to page through it, its head and tail
      const stored = /^\[Tool result offloaded to file: memory:\/\/default\/(\S+)\]\n/.exec(shown)?.[1];
      expect(await store.get(stored!)).toBe(NUMBERED);
      expect(shown).toMatch(/\nRead in pages \(\d+ lines, about \d+ lines a page\): pass an offset and a limit/);
      expect(shown).toContain(NUMBERED.slice(0, 100));
      expect(shown).toContain(NUMBERED.slice(-100));
      expect(result.stats.tokensAfter).toBeLessThan(result.stats.triggerTokens);
    });
  }
});
