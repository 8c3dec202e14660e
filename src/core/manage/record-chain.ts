/**
 * Finds which records apply to a history: one running hash over the history's messages (in the
 * form the manager works on, offload decisions applied), read out only at the span lengths the
 * session's records name. A compaction record whose span matches replaces those messages with
 * its own, and the hash starts over on them (a later record covers the compacted history); a
 * count record that matches gives the token counts of its span. Once no record covers a longer
 * span, nothing more is hashed.
 *
 * What was hashed is kept for the next call: when the next history starts with the very same
 * message objects (an agent loop appending to what it sent), only the messages after them are
 * hashed.
 */
import type { Message } from '../types.js';
import { serializeForFingerprint, startHistoryHash, type Hashing, type RunningHash } from './fingerprint.js';
import type { SessionKnowledge } from './session-knowledge.js';
import type { CompactRecord, CountRecord, RecordedCalibration, RecordedTokens, RecordKind, RecordSpan, SessionRecord } from './session-records.js';
import { startsWithSame } from './usage-anchor.js';

/** Reads the first usable record of `kind` for `span`, if there is one. */
export type ReadRecord = <K extends RecordKind>(kind: K, span: RecordSpan) => Promise<(K extends 'compact' ? CompactRecord : CountRecord) | undefined>;

/** What matching found. */
export interface RecordMatch {
  /** The history with every matching compaction applied. */
  messages: Message[];
  /** The records that applied, in order (a count record's span is a prefix of `messages`). */
  applied: SessionRecord[];
  /** Messages of the given history that compactions replaced (0: none). */
  replaced: number;
  /** The calibration of the last record that applied, if any. */
  calibration: RecordedCalibration | undefined;
}

/** At most this many compactions apply to one history, one over the output of the one before. */
const MAX_SUBSTITUTIONS = 64;

interface ChainCache {
  /** A prefix of a history matched before (objects), and what it became. */
  input: readonly Message[];
  output: readonly Message[];
  /** The hash over `output`. */
  hash: RunningHash;
  replaced: number;
  applied: readonly SessionRecord[];
  calibration: RecordedCalibration | undefined;
  recordsVersion: number;
}

/** Receives the token counts a record gives for `messages`. */
export type TakeTokens = (messages: readonly Message[], tokens: RecordedTokens | undefined) => void;

/** Matches histories against a session's records, keeping what it hashed for the next call. */
export interface RecordChain {
  match(history: readonly Message[], knowledge: SessionKnowledge, read: ReadRecord, takeTokens: TakeTokens): Promise<RecordMatch>;
  /** The fingerprint of the first `count` messages of `messages` (the span of a record about to be written). */
  fingerprint(messages: readonly Message[], count: number): string;
  /**
   * Notes that the history `input` now stands for `output` (itself, or a compaction's messages),
   * with `calibration` in force: the next history that starts with the objects of `input` is
   * hashed from there on.
   */
  remember(input: readonly Message[], output: readonly Message[], calibration: RecordedCalibration, knowledge: SessionKnowledge): void;
  /** Forgets what was hashed (a record another process wrote first changed what is in force). */
  reset(): void;
}

/** A record chain over `hashing`. */
export function createRecordChain(hashing: Hashing): RecordChain {
  let cache: ChainCache | undefined;

  return {
    async match(history, knowledge, read, takeTokens) {
      let index = 0;
      let output: Message[] = [];
      let hash: RunningHash;
      let replaced = 0;
      let applied: SessionRecord[] = [];
      let calibration: RecordedCalibration | undefined;
      const resumable = cache !== undefined && cache.recordsVersion === knowledge.recordsVersion && startsWithSame(history, cache.input);
      // no record at all: nothing to hash
      if (!resumable && knowledge.longestSpan === 0) return { messages: history.slice(), applied: [], replaced: 0, calibration: undefined };
      if (resumable && cache !== undefined) {
        index = cache.input.length;
        output = cache.output.slice();
        hash = cache.hash.copy();
        ({ replaced, calibration } = cache);
        applied = cache.applied.slice();
      } else {
        hash = startHistoryHash(hashing);
      }

      const checkSpan = async (substitutions: number): Promise<void> => {
        if (!knowledge.hasSpanOf(output.length)) return;
        const span: RecordSpan = { messages: output.length, fingerprint: (hash as RunningHash).digest() };
        const compacted = substitutions < MAX_SUBSTITUTIONS ? await read('compact', span) : undefined;
        if (compacted !== undefined) {
          output = compacted.messages.slice();
          takeTokens(compacted.messages, compacted.tokens);
          hash = startHistoryHash(hashing);
          for (const message of output) hash.update(serializeForFingerprint(message));
          replaced = index;
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

      while (index < history.length && output.length < knowledge.longestSpan) {
        const message = history[index] as Message;
        output.push(message);
        hash.update(serializeForFingerprint(message));
        index += 1;
        await checkSpan(0);
      }
      cache = { input: history.slice(0, index), output: output.slice(), hash: hash.copy(), replaced, applied, calibration, recordsVersion: knowledge.recordsVersion };
      for (; index < history.length; index += 1) output.push(history[index] as Message);
      return { messages: output, applied, replaced, calibration };
    },

    fingerprint(messages, count) {
      return hashPrefix(messages, count).digest();
    },

    remember(input, output, calibration, knowledge) {
      const hash = hashPrefix(output, output.length);
      cache = { input: input.slice(), output: output.slice(), hash, replaced: input === output ? 0 : input.length, applied: [], calibration, recordsVersion: knowledge.recordsVersion };
    },

    reset() {
      cache = undefined;
    },
  };

  /** A hash over the first `count` messages of `messages`, resumed from what was hashed when they start with it. */
  function hashPrefix(messages: readonly Message[], count: number): RunningHash {
    let hash: RunningHash;
    let from = 0;
    if (cache !== undefined && cache.output.length <= count && startsWithSame(messages, cache.output)) {
      hash = cache.hash.copy();
      from = cache.output.length;
    } else {
      hash = startHistoryHash(hashing);
    }
    for (let index = from; index < count; index += 1) hash.update(serializeForFingerprint(messages[index] as Message));
    return hash;
  }
}
