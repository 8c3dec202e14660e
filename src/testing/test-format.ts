/**
 * The contract every {@link MessageFormat} adapter meets, as a vitest suite: the package runs it
 * on its six built-in formats, and a user runs it on an adapter of their own.
 */
import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import type { MessageFormat } from '../core/format.js';
import { buildBatchReference } from '../core/offload/offload-reference.js';
import type { ContentBlock, Message } from '../core/types.js';

/** A message that is not in the adapter's format, and the path its error must name. */
export interface TestFormatInvalidCase {
  /** A history holding the bad message. */
  messages: readonly unknown[];
  /** The start of the error's `path`, e.g. `messages[1].tool_call_id` or `messages[1]`. */
  path: string;
}

/** Options of {@link testFormat}. */
export interface TestFormatOptions {
  /** Histories with a message not in the format: `toCanonical` must throw `INVALID_MESSAGE` naming its path. */
  invalid?: readonly TestFormatInvalidCase[];
}

/** Histories for {@link testFormat}: a list, or a record by name (the names title the cases). */
export type TestFormatSamples<M> = readonly (readonly M[])[] | Readonly<Record<string, readonly M[]>>;

/** The reference text the suite puts in place of a tool output, as offload writes it. */
function referenceFor(toolUseId: string): string {
  return buildBatchReference(`./tool-result-${toolUseId}.md`);
}

interface ToolResultPlace {
  messageIndex: number;
  blockIndex: number;
  toolUseId: string;
  isError: boolean;
}

function findToolResults(canonical: readonly Message[]): ToolResultPlace[] {
  const places: ToolResultPlace[] = [];
  canonical.forEach((message, messageIndex) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => {
      const fields = block as unknown as Record<string, unknown>;
      if (fields.type === 'tool_result' && typeof fields.tool_use_id === 'string') {
        places.push({ messageIndex, blockIndex, toolUseId: fields.tool_use_id, isError: fields.is_error === true });
      }
    });
  });
  return places;
}

/** A copy of `message` (as offload makes one: every field kept) whose block `blockIndex` has `content` replaced. */
function replaceContent(message: Message, blockIndex: number, content: string): Message {
  const blocks = (message.content as ContentBlock[]).map((block, index) =>
    index === blockIndex ? { ...block, content } : { ...block },
  );
  return { ...message, content: blocks };
}

/** The text of a tool result's content: a string, or its text blocks joined. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .map((block: { type?: unknown; text?: unknown }) =>
      block.type === 'text' && typeof block.text === 'string' ? block.text : '',
    )
    .join('');
}

/** A new object of the same class with the same own fields. */
function copyShallow<M>(message: M): M {
  return Object.assign(Object.create(Object.getPrototypeOf(message) as object | null) as object, message) as M;
}

/** A structural snapshot of a history, to prove it was not changed in place. */
function snapshot(messages: readonly unknown[]): string {
  return JSON.stringify(messages);
}

/** The tool results of a sample, or none when it does not convert (the cases above then report why). */
function findToolResultsSafely<M>(adapter: MessageFormat<M>, history: readonly M[]): ToolResultPlace[] {
  try {
    return findToolResults(adapter.toCanonical(history));
  } catch {
    return [];
  }
}

function namedSamples<M>(samples: TestFormatSamples<M>): Array<[string, readonly M[]]> {
  if (Array.isArray(samples))
    return (samples as readonly (readonly M[])[]).map((history, index) => [`sample ${index + 1}`, history]);
  return Object.entries(samples as Readonly<Record<string, readonly M[]>>);
}

/**
 * Registers the {@link MessageFormat} contract as vitest cases, over each sample history:
 * `fromCanonical(toCanonical(x), x)` gives back `x` deep-equal and element by element the
 * caller's own objects; one canonical message per message, well-formed; `toCanonical` memoized
 * (the same canonical objects twice); `detect` recognizes the sample; the input never changed in
 * place; and for each tool result, a canonical history in which that output alone became a
 * reference text comes back in the format with the reference text in that message and every
 * other message the caller's own object. With `options.invalid`, each bad history is refused
 * with `INVALID_MESSAGE` naming the path.
 *
 * Call it at the top level of a vitest test file (or inside a `describe`): it imports `vitest`.
 *
 * @example
 * ```ts
 * import { testFormat } from 'agent-context-offload/testing';
 * import { myFormat } from '../src/my-format.js';
 *
 * testFormat(myFormat, { 'a tool call and its result': [callMessage, resultMessage] });
 * ```
 */
export function testFormat<M>(
  adapter: MessageFormat<M>,
  samples: TestFormatSamples<M>,
  options: TestFormatOptions = {},
): void {
  const histories = namedSamples(samples);
  describe(`${adapter.name}: MessageFormat contract`, () => {
    it('has a name and the three functions', () => {
      expect(typeof adapter.name).toBe('string');
      expect(adapter.name).not.toBe('');
      for (const method of [adapter.toCanonical, adapter.fromCanonical, adapter.detect])
        expect(typeof method).toBe('function');
    });

    it('was given at least one sample', () => {
      expect(histories.length).toBeGreaterThan(0);
    });

    for (const [name, history] of histories) {
      describe(name, () => {
        it('converts one message to one canonical message, in order', () => {
          const canonical = adapter.toCanonical(history);
          expect(canonical).toHaveLength(history.length);
          for (const message of canonical) {
            expect(['system', 'user', 'assistant']).toContain(message.role);
            expect(typeof message.content === 'string' || Array.isArray(message.content)).toBe(true);
          }
        });

        it("round-trips to the same history, each message the caller's own object", () => {
          const back = adapter.fromCanonical(adapter.toCanonical(history), history);
          expect(back).toEqual(history);
          expect(back).toHaveLength(history.length);
          back.forEach((message, index) => expect(message).toBe(history[index]));
        });

        it('memoizes: converting the same history twice gives the same canonical objects', () => {
          const first = adapter.toCanonical(history);
          const second = adapter.toCanonical(history);
          second.forEach((message, index) => expect(message).toBe(first[index]));
        });

        it('detects the sample as its format', () => {
          expect(adapter.detect(history)).toBe(true);
        });

        it('never changes its input in place', () => {
          const before = snapshot(history);
          const canonical = adapter.toCanonical(history);
          const places = findToolResults(canonical);
          const changed = canonical.slice();
          for (const place of places)
            changed[place.messageIndex] = replaceContent(
              changed[place.messageIndex]!,
              place.blockIndex,
              referenceFor(place.toolUseId),
            );
          adapter.fromCanonical(changed, history);
          expect(snapshot(history)).toBe(before);
        });

        for (const place of findToolResultsSafely(adapter, history)) {
          it(`gives back an offloaded tool result (${place.toolUseId}) as the reference text, every other message untouched`, () => {
            const canonical = adapter.toCanonical(history);
            const reference = referenceFor(place.toolUseId);
            const changed = canonical.slice();
            changed[place.messageIndex] = replaceContent(canonical[place.messageIndex]!, place.blockIndex, reference);
            const back = adapter.fromCanonical(changed, history);
            expect(back).toHaveLength(history.length);
            back.forEach((message, index) => {
              if (index !== place.messageIndex) expect(message).toBe(history[index]);
            });
            const rebuilt = back[place.messageIndex]!;
            expect(rebuilt).not.toBe(history[place.messageIndex]);
            // A new object with the same fields, so a memoized conversion cannot stand in for the real one;
            // converted in its place in the history, since a format may pair calls and results by position.
            const withCopy = back.map((message, index) =>
              index === place.messageIndex ? copyShallow(rebuilt) : message,
            );
            const again = adapter.toCanonical(withCopy)[place.messageIndex]!;
            const block = (again.content as ContentBlock[])[place.blockIndex] as unknown as Record<string, unknown>;
            expect(block.type).toBe('tool_result');
            expect(block.tool_use_id).toBe(place.toolUseId);
            expect(textOf(block.content)).toBe(reference);
            expect(block.is_error === true).toBe(place.isError);
          });
        }
      });
    }

    for (const { messages, path } of options.invalid ?? []) {
      it(`refuses a message not in the format, naming ${path}`, () => {
        let caught: unknown;
        try {
          adapter.toCanonical(messages as readonly M[]);
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(ContextError);
        expect((caught as ContextError).code).toBe('INVALID_MESSAGE');
        expect((caught as { path?: unknown }).path).toEqual(
          expect.stringMatching(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)),
        );
      });
    }
  });
}
