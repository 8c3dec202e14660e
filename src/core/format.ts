/**
 * The message-format port. The core works on one canonical history (the Anthropic Messages
 * shape of `types.ts`); an adapter in `src/formats/` converts another API's history to it and
 * back. The core never imports an adapter: the public layer resolves a format name to its
 * adapter and hands it over as a value.
 *
 * Contract every adapter keeps (checked by `testFormat` in `agent-context-offload/testing`):
 * - One message in, one message out, in order: canonical message `i` stands for source message
 *   `i`. Errors can therefore name the source index, and a plan made on the canonical history
 *   maps back position by position.
 * - `toCanonical` memoizes per source object (a `WeakMap`), so converting the same history
 *   twice returns the same canonical objects and the token cache (keyed by message object)
 *   stays warm across agent turns.
 * - `fromCanonical(canonical, original)` returns the caller's own object for every canonical
 *   message that is the memoized conversion of a source message (nothing changed it), and for
 *   a changed message when both histories have the same length (offload changes tool outputs in
 *   place, never the length) a copy of the original at that index with only the changed tool
 *   output replaced, so fields the canonical model lacks survive. Any other message (a
 *   compaction's summary, a restored file) is built fresh.
 *   `fromCanonical(toCanonical(x), x)` is `x` deep-equal, element by element identical.
 * - A message that is not in the declared format is `INVALID_MESSAGE` naming its index and
 *   field. A tool result whose call is missing is kept and counted, never dropped.
 */
import type { Message } from './types.js';

/** The names of the built-in formats, as accepted by the `format` option. */
export type FormatName =
  'anthropic' | 'openai-chat' | 'openai-responses' | 'openai-agents' | 'ai-sdk' | 'langchain' | 'gemini';

/**
 * Converts a history in one API's message shape to the package's canonical shape (the
 * Anthropic Messages shape) and back, message for message.
 *
 * @typeParam M - the format's own message type.
 */
export interface MessageFormat<M = unknown> {
  /** The format's name, as used by the `format` option and the CLI's `--format`. */
  readonly name: FormatName | (string & {});
  /**
   * Whether `messages` looks like a history in this format (used by the CLI to detect the
   * format of a transcript). A cheap shape check, not a validation.
   */
  detect(messages: readonly unknown[]): boolean;
  /**
   * The canonical history of `messages`: same length and order. Memoized per source object.
   *
   * @throws `INVALID_MESSAGE` naming the index and field of the first message that is not in
   * this format.
   */
  toCanonical(messages: readonly M[]): Message[];
  /**
   * The history in this format for `canonical`. Unchanged canonical messages give back the
   * caller's own objects from `original`; when the lengths match, changed ones are rebuilt on
   * the original at the same index, so unknown fields are kept; the rest are built fresh.
   */
  fromCanonical(canonical: readonly Message[], original?: readonly M[]): M[];
}
