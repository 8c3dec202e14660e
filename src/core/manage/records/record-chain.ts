/**
 * Finds which records apply to a history: one running hash over the history's messages (in the
 * form the manager works on, offload decisions applied), read out only at the span lengths the
 * session's records name. A compaction record whose span matches replaces those messages with
 * its own, and the hash starts over on them (a later record covers the compacted history); a
 * count record that matches gives the token counts of its span. Once no record covers a longer
 * span, nothing more is hashed.
 *
 * What was hashed is kept for the next call, as the hash's state at points along the history:
 * at every {@link CHECKPOINT_STRIDE}th message and at each of the last {@link DENSE_TAIL}. The
 * next history is hashed from the last point before its first message that is not the very same
 * object as before. An agent loop that appends to what it sent, and a client that sends its own
 * history again with a message or two changed at its end (Claude Code moves its prompt-cache
 * marker to the newest message at each request), are hashed only from there on.
 */
import type { Message } from '../../types.js';
import { serializeForFingerprint, startHistoryHash, type Hashing, type RunningHash } from './fingerprint.js';
import type { SessionKnowledge } from './session-knowledge.js';
import type {
  RecordedCalibration,
  RecordedTokens,
  RecordKind,
  RecordOfKind,
  RecordSpan,
  SessionRecord,
} from './session-records.js';
import { startsWithSame } from '../counting/usage-anchor.js';

/** Reads the first usable record of `kind` for `span`, if there is one. */
export type ReadRecord = <K extends RecordKind>(kind: K, span: RecordSpan) => Promise<RecordOfKind<K> | undefined>;

/** What matching found. */
interface RecordMatch {
  /** The history with every matching compaction applied. */
  messages: Message[];
  /** The records that applied, in order (a count record's span is a prefix of `messages`). */
  applied: SessionRecord[];
  /** Messages of the given history that compactions replaced (0: none). */
  replaced: number;
  /** The calibration of the last record that applied, if any. */
  calibration: RecordedCalibration | undefined;
  /**
   * Fingerprints of prefixes of `messages` this match hashed, by length: at the record spans it
   * met after the last compaction it applied, from where it resumed on (a record about to be
   * looked up at one of them needs no hashing).
   */
  fingerprints: ReadonlyMap<number, string>;
}

/** At most this many compactions apply to one history, one over the output of the one before. */
const MAX_SUBSTITUTIONS = 64;

/** Messages between two kept hash states, away from the end of a history. */
const CHECKPOINT_STRIDE = 64;
/** The last messages of a history, after each of which the hash state is kept. */
const DENSE_TAIL = 16;

/** The chain's state once the first `length` messages of {@link ChainCache.output} were hashed and their spans checked. */
interface Checkpoint {
  length: number;
  hash: RunningHash;
  /** How many of {@link ChainCache.applied} had applied by then. */
  applied: number;
  calibration: RecordedCalibration | undefined;
}

interface ChainCache {
  /** The given messages the compactions replaced (by object; empty: none). */
  replacedInput: readonly Message[];
  /** What the history became: `head` messages the compactions put in, then given messages as they came. */
  output: readonly Message[];
  head: number;
  /** Ascending by length, each a state of a prefix of `output`. */
  checkpoints: readonly Checkpoint[];
  applied: readonly SessionRecord[];
  recordsVersion: number;
}

/** Where a history resumes: a checkpoint, and the index of the given history it stands at. */
interface Resume {
  checkpoint: Checkpoint;
  index: number;
  replaced: number;
}

/** Receives the token counts a record gives for `messages`. */
type TakeTokens = (messages: readonly Message[], tokens: RecordedTokens | undefined) => void;

/** Matches histories against a session's records, keeping what it hashed for the next call. */
export interface RecordChain {
  match(
    history: readonly Message[],
    knowledge: SessionKnowledge,
    read: ReadRecord,
    takeTokens: TakeTokens,
  ): Promise<RecordMatch>;
  /** The fingerprint of the first `count` messages of `messages` (the span of a record about to be written). */
  fingerprint(messages: readonly Message[], count: number): string;
  /**
   * The fingerprints of the first `length` messages of `messages`, for each of `lengths` (each at
   * most `messages.length`): hashed in one pass, and those of a prefix made of the very objects
   * of the last call's not hashed again (the spans of a session's figures, looked up at every
   * request, are mostly the same).
   */
  fingerprints(messages: readonly Message[], lengths: readonly number[]): Map<number, string>;
  /**
   * Notes that the history `input` now stands for `output` (itself, or a compaction's messages),
   * with `calibration` in force: the next history that starts with the objects of `input` is
   * hashed from there on.
   */
  remember(
    input: readonly Message[],
    output: readonly Message[],
    calibration: RecordedCalibration,
    knowledge: SessionKnowledge,
  ): void;
  /** Forgets what was hashed (a record another process wrote first changed what is in force). */
  reset(): void;
}

/** Index of the first message of `messages` from `from` on that is not `prefix`'s at its place, offset by `offset`; at most `prefix.length`. */
function firstDifference(
  messages: readonly Message[],
  prefix: readonly Message[],
  from: number,
  offset: number,
): number {
  let position = from;
  while (
    position < prefix.length &&
    offset + position < messages.length &&
    messages[offset + position] === prefix[position]
  )
    position += 1;
  return position;
}

/** The last of `checkpoints` whose length is in [min, max]. */
function lastCheckpointWithin(checkpoints: readonly Checkpoint[], min: number, max: number): Checkpoint | undefined {
  for (let index = checkpoints.length - 1; index >= 0; index -= 1) {
    const checkpoint = checkpoints[index] as Checkpoint;
    if (checkpoint.length < min) return undefined;
    if (checkpoint.length <= max) return checkpoint;
  }
  return undefined;
}

/** Whether the state after `length` messages (of which `head` a compaction's) is kept, in a history of `total`. */
function isKept(length: number, head: number, total: number): boolean {
  return (length - head) % CHECKPOINT_STRIDE === 0 || length > total - DENSE_TAIL;
}

/** A record chain over `hashing`. */
export function createRecordChain(hashing: Hashing): RecordChain {
  let cache: ChainCache | undefined;
  // the last `fingerprints` call: its messages (as far as it hashed), what it read out, and the state at its end
  let printed: { prefix: readonly Message[]; prints: Map<number, string>; end: RunningHash } | undefined;
  let lastPrefix:
    | {
        prefix: readonly Message[];
        cache: ChainCache | undefined;
        hash: RunningHash;
        kept: Checkpoint[];
      }
    | undefined;

  /**
   * Where `history` resumes from what was hashed: after the compacted messages when it starts
   * with the very messages they replaced (a client that keeps its raw history), else from its
   * first message (a caller that sends the history as it came out).
   */
  function findResume(history: readonly Message[], knowledge: SessionKnowledge): Resume | undefined {
    if (cache === undefined || cache.recordsVersion !== knowledge.recordsVersion) return undefined;
    const { replacedInput, output, head } = cache;
    if (replacedInput.length > 0 && startsWithSame(history, replacedInput)) {
      const offset = replacedInput.length - head;
      const checkpoint = lastCheckpointWithin(cache.checkpoints, head, firstDifference(history, output, head, offset));
      return checkpoint === undefined
        ? undefined
        : { checkpoint, index: offset + checkpoint.length, replaced: replacedInput.length };
    }
    const checkpoint = lastCheckpointWithin(cache.checkpoints, 0, firstDifference(history, output, 0, 0));
    return checkpoint === undefined ? undefined : { checkpoint, index: checkpoint.length, replaced: 0 };
  }

  return {
    async match(history, knowledge, read, takeTokens) {
      const resume = findResume(history, knowledge);
      // no record at all (and no compaction remembered): nothing to hash
      if (resume === undefined && knowledge.longestSpan === 0)
        return { messages: history.slice(), applied: [], replaced: 0, calibration: undefined, fingerprints: new Map() };
      let index = 0;
      let output: Message[] = [];
      let hash: RunningHash;
      let replaced = 0;
      let head = 0;
      let applied: SessionRecord[] = [];
      let calibration: RecordedCalibration | undefined;
      let checkpoints: Checkpoint[] = [];
      const fingerprints = new Map<number, string>();
      if (resume !== undefined && cache !== undefined) {
        const { checkpoint } = resume;
        index = resume.index;
        output = cache.output.slice(0, checkpoint.length);
        hash = checkpoint.hash.copy();
        replaced = resume.replaced;
        head = replaced > 0 ? cache.head : 0;
        applied = cache.applied.slice(0, checkpoint.applied);
        calibration = checkpoint.calibration;
        checkpoints = cache.checkpoints.filter((kept) => kept.length <= checkpoint.length);
      } else {
        hash = startHistoryHash(hashing);
      }

      const checkSpan = async (substitutions: number): Promise<void> => {
        if (!knowledge.hasSpanOf(output.length)) return;
        const span: RecordSpan = { messages: output.length, fingerprint: (hash as RunningHash).digest() };
        fingerprints.set(span.messages, span.fingerprint);
        const compacted = substitutions < MAX_SUBSTITUTIONS ? await read('compact', span) : undefined;
        if (compacted !== undefined) {
          output = compacted.messages.slice();
          takeTokens(compacted.messages, compacted.tokens);
          hash = startHistoryHash(hashing);
          for (const message of output) hash.update(serializeForFingerprint(message));
          replaced = index;
          head = output.length;
          // the states kept were of the history before this compaction
          checkpoints = [];
          fingerprints.clear();
          applied.push(compacted);
          calibration = compacted.calibration;
          await checkSpan(substitutions + 1);
          return;
        }
        const counted = await read('count', span);
        if (counted !== undefined) {
          takeTokens(output, counted.tokens);
          applied.push(counted);
          calibration = counted.calibration;
        }
      };

      const total = history.length;
      while (index < history.length && output.length < knowledge.longestSpan) {
        const message = history[index] as Message;
        output.push(message);
        hash.update(serializeForFingerprint(message));
        index += 1;
        await checkSpan(0);
        if (isKept(output.length, head, total - index + output.length))
          checkpoints.push({ length: output.length, hash: hash.copy(), applied: applied.length, calibration });
      }
      if (checkpoints.at(-1)?.length !== output.length)
        checkpoints.push({ length: output.length, hash: hash.copy(), applied: applied.length, calibration });
      const end = output.length;
      cache = {
        replacedInput: history.slice(0, replaced),
        output: output.slice(),
        head,
        checkpoints: checkpoints.filter((kept) => isKept(kept.length, head, end)),
        applied,
        recordsVersion: knowledge.recordsVersion,
      };
      for (; index < history.length; index += 1) output.push(history[index] as Message);
      return { messages: output, applied, replaced, calibration, fingerprints };
    },

    fingerprint(messages, count) {
      return hashPrefix(messages, count).hash.digest();
    },

    fingerprints(messages, lengths) {
      const prints = new Map<number, string>();
      const same = printed === undefined ? 0 : firstDifference(messages, printed.prefix, 0, 0);
      const missing: number[] = [];
      for (const length of lengths) {
        const known = length <= same ? printed?.prints.get(length) : undefined;
        if (known === undefined) missing.push(length);
        else prints.set(length, known);
      }
      if (missing.length === 0) return prints;
      missing.sort((left, right) => left - right);
      const first = missing[0] as number;
      const last = missing.at(-1) as number;
      let hash: RunningHash;
      let index: number;
      if (printed !== undefined && same === printed.prefix.length && first >= same) {
        // the same messages as last time, and more: hashing goes on from where it stopped
        hash = printed.end.copy();
        index = same;
      } else {
        ({ hash, from: index } = resumeHash(messages, first));
      }
      for (const length of missing) {
        for (; index < length; index += 1) hash.update(serializeForFingerprint(messages[index] as Message));
        prints.set(length, hash.digest());
      }
      // what stays right for the next call: the prints of the messages it shares with this one, up to where this one hashed
      const kept = new Map<number, string>();
      for (const [length, print] of prints) if (length <= last) kept.set(length, print);
      if (printed !== undefined)
        for (const [length, print] of printed.prints) if (length <= Math.min(same, last)) kept.set(length, print);
      printed = { prefix: messages.slice(0, last), prints: kept, end: hash };
      return prints;
    },

    remember(input, output, calibration, knowledge) {
      // the states hashed before stay right for the messages this output shares with what they were of
      const previous = cache;
      const { hash, kept } = hashPrefix(output, output.length);
      if (input !== output) {
        const final: Checkpoint = { length: output.length, hash, applied: 0, calibration };
        cache = {
          replacedInput: input.slice(),
          output: output.slice(),
          head: output.length,
          checkpoints: [final],
          applied: [],
          recordsVersion: knowledge.recordsVersion,
        };
        return;
      }
      const last = kept.at(-1);
      // a raw history that reaches this output through a compaction still resumes after it
      const head =
        previous !== undefined && previous.head > 0 && last !== undefined && last.length >= previous.head
          ? previous.head
          : 0;
      const applied = previous === undefined || last === undefined ? [] : previous.applied.slice(0, last.applied);
      const final: Checkpoint = { length: output.length, hash, applied: applied.length, calibration };
      cache = {
        replacedInput: head > 0 && previous !== undefined ? previous.replacedInput : [],
        output: output.slice(),
        head,
        checkpoints: [
          ...kept.filter(
            (checkpoint) => checkpoint.length < output.length && isKept(checkpoint.length, head, output.length),
          ),
          final,
        ],
        applied,
        recordsVersion: knowledge.recordsVersion,
      };
    },

    reset() {
      cache = undefined;
    },
  };

  /**
   * A hash over the first `count` messages of `messages`, resumed from the last state kept of a
   * prefix they start with; also the states kept that stay right for `messages` (up to it).
   */
  function hashPrefix(messages: readonly Message[], count: number): { hash: RunningHash; kept: Checkpoint[] } {
    // a record's span is hashed for its name, then again to remember it: the same messages (compared one by one: arrays change in place), the same states
    if (
      lastPrefix !== undefined &&
      lastPrefix.cache === cache &&
      lastPrefix.prefix.length === count &&
      startsWithSame(messages, lastPrefix.prefix)
    ) {
      return { hash: lastPrefix.hash.copy(), kept: lastPrefix.kept };
    }
    const hashed = hashPrefixAnew(messages, count);
    lastPrefix = { prefix: messages.slice(0, count), cache, hash: hashed.hash.copy(), kept: hashed.kept };
    return hashed;
  }

  /** A hash of the longest prefix of `messages` of at most `count` messages that a state kept by `match` covers (else of none). */
  function resumeHash(
    messages: readonly Message[],
    count: number,
  ): { hash: RunningHash; from: number; checkpoint: Checkpoint | undefined } {
    const checkpoint =
      cache === undefined
        ? undefined
        : lastCheckpointWithin(cache.checkpoints, 0, Math.min(count, firstDifference(messages, cache.output, 0, 0)));
    return checkpoint === undefined
      ? { hash: startHistoryHash(hashing), from: 0, checkpoint }
      : { hash: checkpoint.hash.copy(), from: checkpoint.length, checkpoint };
  }

  function hashPrefixAnew(messages: readonly Message[], count: number): { hash: RunningHash; kept: Checkpoint[] } {
    const { hash, from, checkpoint } = resumeHash(messages, count);
    const kept =
      cache === undefined || checkpoint === undefined
        ? []
        : cache.checkpoints.filter((state) => state.length <= checkpoint.length);
    for (let index = from; index < count; index += 1) hash.update(serializeForFingerprint(messages[index] as Message));
    return { hash, kept };
  }
}
