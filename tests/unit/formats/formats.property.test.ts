/**
 * Properties of every format over generated histories: one
 * canonical message per message; a round trip gives back the caller's own objects; toCanonical
 * is memoized; copies of unchanged canonical messages still map back to the caller's objects;
 * an offloaded tool result comes back as the format's tool output holding the reference, all
 * else untouched; a fresh build of the canonical form gives the history back; a tool result
 * whose call is missing is kept.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageFormat } from '../../../src/core/format.js';
import type { ContentBlock, Message } from '../../../src/core/types.js';
import { createLangchainFormat, formats } from '../../../src/formats/index.js';
import {
  conversation,
  toAiSdk,
  toGemini,
  toLangchain,
  toOpenAIAgents,
  toOpenAIChat,
  toOpenAIResponses,
  type ConversationSpec,
} from './arbitraries.js';

interface Case {
  format: MessageFormat<unknown>;
  build: (spec: ConversationSpec, variant: { normal: boolean }) => unknown[];
  /** Whether a message holds a tool call (dropped to orphan the results). */
  isCall: (message: unknown) => boolean;
  /** The format that builds fresh messages, when not `format` itself. */
  freshFormat?: MessageFormat<unknown>;
  /** Fresh builds are compared in canonical form (class instances carry constructor state). */
  compareCanonical?: boolean;
}

const fieldsOf = (value: unknown): Record<string, unknown> => value as Record<string, unknown>;

const CASES: Case[] = [
  { format: formats.openaiChat, build: toOpenAIChat, isCall: (message) => fieldsOf(message).tool_calls !== undefined },
  {
    format: formats.openaiResponses,
    build: toOpenAIResponses,
    isCall: (message) => fieldsOf(message).type === 'function_call',
  },
  {
    format: formats.openaiAgents,
    build: toOpenAIAgents,
    isCall: (message) => fieldsOf(message).type === 'function_call',
  },
  { format: formats.aiSdk, build: toAiSdk, isCall: (message) => fieldsOf(message).role === 'assistant' },
  {
    format: formats.gemini,
    build: toGemini,
    isCall: (message) =>
      (fieldsOf(message).parts as Array<Record<string, unknown>>).some((part) => part.functionCall !== undefined),
  },
  {
    format: formats.langchain,
    build: toLangchain,
    isCall: (message) => message instanceof AIMessage,
    freshFormat: createLangchainFormat({ messageClasses: { AIMessage, HumanMessage, SystemMessage, ToolMessage } }),
    compareCanonical: true,
  },
];

/** A deep copy as the core makes one: plain objects and arrays copied, anything else kept. */
function copyDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyDeep) as T;
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, copyDeep(field)])) as T;
}

/** A new object of the same class with the same own fields (not memoized). */
function copyShallow(message: unknown): unknown {
  return Object.assign(Object.create(Object.getPrototypeOf(message) as object | null) as object, message);
}

interface Place {
  messageIndex: number;
  blockIndex: number;
  id: string;
  isError: boolean;
}

function toolResults(canonical: readonly Message[]): Place[] {
  const places: Place[] = [];
  canonical.forEach((message, messageIndex) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => {
      const fields = fieldsOf(block);
      if (fields.type === 'tool_result')
        places.push({ messageIndex, blockIndex, id: fields.tool_use_id as string, isError: fields.is_error === true });
    });
  });
  return places;
}

/** A tool result's text: a string, or its text blocks joined (a format may keep a structured text output). */
function textOf(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((block) => (fieldsOf(block).type === 'text' ? fieldsOf(block).text : '')).join('');
}

const RUNS = { numRuns: 60 };

for (const { format, build, isCall, freshFormat, compareCanonical } of CASES) {
  describe(`${format.name} over generated histories`, () => {
    it("converts one message to one canonical message and back to the caller's own objects", () => {
      fc.assert(
        fc.property(conversation, (spec) => {
          const history = build(spec, { normal: false });
          const canonical = format.toCanonical(history);
          expect(canonical).toHaveLength(history.length);
          const back = format.fromCanonical(canonical, history);
          expect(back).toHaveLength(history.length);
          back.forEach((message, index) => expect(message).toBe(history[index]));
        }),
        RUNS,
      );
    });

    it('memoizes per message object', () => {
      fc.assert(
        fc.property(conversation, (spec) => {
          const history = build(spec, { normal: false });
          const first = format.toCanonical(history);
          const again = format.toCanonical(history.slice().reverse()).reverse();
          again.forEach((message, index) => expect(message).toBe(first[index]));
        }),
        RUNS,
      );
    });

    it("maps copies of unchanged canonical messages back to the caller's own objects", () => {
      fc.assert(
        fc.property(conversation, (spec) => {
          const history = build(spec, { normal: false });
          const back = format.fromCanonical(format.toCanonical(history).map(copyDeep), history);
          back.forEach((message, index) => expect(message).toBe(history[index]));
        }),
        RUNS,
      );
    });

    it('gives back an offloaded tool result as the reference text in the format, every other message untouched', () => {
      fc.assert(
        fc.property(conversation, fc.nat(), (spec, pick) => {
          const history = build(spec, { normal: false });
          const before = JSON.stringify(history);
          const canonical = format.toCanonical(history);
          const places = toolResults(canonical);
          fc.pre(places.length > 0);
          const place = places[pick % places.length]!;
          const reference = `[Content offloaded to: ./tool-result-${place.id}.md]`;
          const changed = canonical.map(copyDeep);
          (changed[place.messageIndex]!.content as ContentBlock[])[place.blockIndex] = {
            ...fieldsOf((changed[place.messageIndex]!.content as ContentBlock[])[place.blockIndex]),
            content: reference,
          } as ContentBlock;
          const back = format.fromCanonical(changed, history);
          expect(back).toHaveLength(history.length);
          back.forEach((message, index) => {
            if (index !== place.messageIndex) expect(message).toBe(history[index]);
          });
          // The next turn reads the rebuilt message as the very canonical message offload made.
          expect(format.toCanonical([back[place.messageIndex]])[0]).toBe(changed[place.messageIndex]);
          // A new object of the same fields is converted afresh, in its place (a format may pair by position):
          // the format's message holds the reference.
          const withCopy = back.map((message, index) =>
            index === place.messageIndex ? copyShallow(message) : message,
          );
          const reread = format.toCanonical(withCopy)[place.messageIndex]!;
          const block = fieldsOf((reread.content as ContentBlock[])[place.blockIndex]);
          expect(block).toMatchObject({ type: 'tool_result', tool_use_id: place.id });
          expect(textOf(block.content)).toBe(reference);
          expect(block.is_error === true).toBe(place.isError);
          expect(JSON.stringify(history)).toBe(before);
        }),
        RUNS,
      );
    });

    it('builds a history of fresh-build shapes back from its canonical form alone', () => {
      const fresh = freshFormat ?? format;
      fc.assert(
        fc.property(conversation, (spec) => {
          const history = build(spec, { normal: true });
          const rebuilt = fresh.fromCanonical(format.toCanonical(history).map(copyDeep));
          if (compareCanonical === true) expect(format.toCanonical(rebuilt)).toEqual(format.toCanonical(history));
          else expect(rebuilt).toEqual(history);
        }),
        RUNS,
      );
    });

    it('keeps and counts a tool result whose call is missing', () => {
      fc.assert(
        fc.property(conversation, (spec) => {
          const orphans = build(spec, { normal: false }).filter((message) => !isCall(message));
          const canonical = format.toCanonical(orphans);
          const expected = spec.turns.reduce((count, value) => count + value.calls.length, 0);
          expect(toolResults(canonical)).toHaveLength(expected);
          format.fromCanonical(canonical, orphans).forEach((message, index) => expect(message).toBe(orphans[index]));
        }),
        RUNS,
      );
    });
  });
}
