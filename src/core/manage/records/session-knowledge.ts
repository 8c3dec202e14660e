/**
 * What a manager knows of its session's folder: the contents offloaded there (by name) and the
 * records written there (by name, and, once read, by value). It is filled from one listing of
 * the folder and from the manager's own writes; it only grows (a name, once written, names its
 * content forever), so it is a cache that is never wrong, only incomplete. A record is read only
 * when a history reaches its span with the same fingerprint, and read once.
 */
import { parseContentName } from '../offload/content-names.js';
import {
  parseRecordName,
  RECORD_FOLDER,
  type RecordKind,
  type RecordName,
  type RecordSpan,
  type SessionRecord,
} from './session-records.js';

/** The key of a span for one kind of record. */
function spanKey(kind: RecordKind, span: RecordSpan): string {
  return `${kind}:${span.messages}:${span.fingerprint}`;
}

/** What a manager knows of its session's folder. */
export interface SessionKnowledge {
  /** Grows by one each time record names are learned that were not known: matches made before may be stale. */
  readonly recordsVersion: number;
  /** Whether the folder has been listed at least once. */
  readonly listed: boolean;
  /** Whether a content of this name (relative to the session folder) is stored. */
  hasContent(name: string): boolean;
  /** Whether some stored content may belong to a call id of this stem (a cheap check before hashing a result). */
  knowsStem(stem: string): boolean;
  /** Whether some stored content has this content hash (the hash a name carries). */
  knowsContentHash(hash: string): boolean;
  /** Whether a record covers a span of exactly `messages` messages. */
  hasSpanOf(messages: number): boolean;
  /** The largest span length a record covers (0 without records). */
  readonly longestSpan: number;
  /** The names of the records of `kind` for `span`, first written first. */
  recordNames(kind: RecordKind, span: RecordSpan): RecordName[];
  /** The spans records of `kind` cover, in the order they became known. */
  recordSpans(kind: RecordKind): readonly RecordSpan[];
  /** A record already read: the record, `null` when it was unusable, `undefined` when not read yet. */
  readRecord(name: RecordName): SessionRecord | null | undefined;
  /** Keeps what reading a record found. */
  keepRecord(name: RecordName, record: SessionRecord | null): void;
  /** Learns a content written (by this manager). */
  addContent(name: string): void;
  /** Learns a record met while writing (ours, or one written first), with its value (`null`: unusable). */
  addRecord(name: RecordName, record: SessionRecord | null): void;
  /** Learns every name of a listing of the session folder (keys relative to it). */
  learnListing(names: Iterable<string>): void;
}

/** An empty knowledge. */
export function createSessionKnowledge(): SessionKnowledge {
  const contents = new Set<string>();
  const stems = new Set<string>();
  const hashes = new Set<string>();
  const records = new Map<string, RecordName[]>();
  const spansOfKind = new Map<RecordKind, RecordSpan[]>();
  const spans = new Map<number, number>();
  const values = new Map<string, SessionRecord | null>();
  // every name a listing gave: a folder's listing repeats them all each time, and they name the same things forever
  const listedNames = new Set<string>();
  let recordsVersion = 0;
  let listed = false;
  let longestSpan = 0;

  const valueKey = (name: RecordName): string => `${spanKey(name.kind, name.span)}~${name.attempt}`;

  function addContent(name: string): void {
    if (contents.has(name)) return;
    contents.add(name);
    const parsed = parseContentName(name);
    if (parsed === undefined) return;
    for (const stem of parsed.stems) stems.add(stem);
    hashes.add(parsed.hash);
  }

  function addRecordName(name: RecordName): boolean {
    const key = spanKey(name.kind, name.span);
    const names = records.get(key) ?? [];
    if (names.some((known) => known.attempt === name.attempt)) return false;
    if (names.length === 0) {
      const kindSpans = spansOfKind.get(name.kind) ?? [];
      kindSpans.push(name.span);
      spansOfKind.set(name.kind, kindSpans);
    }
    names.push(name);
    names.sort((left, right) => left.attempt - right.attempt);
    records.set(key, names);
    spans.set(name.span.messages, (spans.get(name.span.messages) ?? 0) + 1);
    longestSpan = Math.max(longestSpan, name.span.messages);
    return true;
  }

  return {
    get recordsVersion() {
      return recordsVersion;
    },
    get listed() {
      return listed;
    },
    get longestSpan() {
      return longestSpan;
    },
    hasContent: (name) => contents.has(name),
    knowsStem: (stem) => stems.has(stem),
    knowsContentHash: (hash) => hashes.has(hash),
    hasSpanOf: (messages) => spans.has(messages),
    recordNames: (kind, span) => records.get(spanKey(kind, span)) ?? [],
    recordSpans: (kind) => spansOfKind.get(kind) ?? [],
    readRecord: (name) => values.get(valueKey(name)),
    keepRecord: (name, record) => void values.set(valueKey(name), record),
    addContent,
    addRecord(name, record) {
      // our own record: matches made before it existed stay right (it covers what we just sent)
      addRecordName(name);
      values.set(valueKey(name), record);
    },
    learnListing(names) {
      listed = true;
      let learned = false;
      const folder = `${RECORD_FOLDER}/`;
      for (const name of names) {
        if (listedNames.has(name)) continue;
        listedNames.add(name);
        if (name.startsWith(folder)) {
          const record = parseRecordName(name.slice(folder.length));
          if (record !== undefined && addRecordName(record)) learned = true;
        } else if (!name.includes('/')) {
          addContent(name);
        }
      }
      if (learned) recordsVersion += 1;
    },
  };
}
