/**
 * The manager's records: what it decided about a span of a history, written into the session's
 * folder of the store (`<sessionId>/.records/`) so that any process preparing the same session
 * finds them. Each record is keyed by the span it covers (its length in messages and the
 * fingerprint of its content), written once, and versioned:
 * - a compaction record (`compact-<n>-<fingerprint>.json`): the span of `n` messages became
 *   exactly these messages (summary, restored files), with their token counts;
 * - a count record (`count-<n>-<fingerprint>.json`): the local token count of each message of the
 *   span, so a process that meets the history again does not tokenize it again;
 * - an anchor record (`anchor-<n>-<fingerprint>.json`): the provider's usage figure for the span
 *   (a caller's `lastUsage`), so the next figure of the history learns the calibration from it
 *   in whichever process it arrives; written when the figure moves the calibration, or when no
 *   figure before it was recorded (one that moves it little is learned over by the next).
 * Each carries the calibration (provider tokens per local token) in force from there on.
 *
 * A record that does not parse, has another version, or does not match its name is reported as
 * unusable (the caller warns and redoes the work). The read tool never opens records: their
 * keys are one folder deeper than any offloaded content.
 *
 * The `manage/records` folder: the manager's decisions kept in the store.
 * - `session-records.ts`: the records' names, shapes and versions (this file).
 * - `fingerprint.ts`: content fingerprints, the records' keys.
 * - `record-chain.ts`: which records apply to a history.
 * - `session-knowledge.ts`: what a manager knows of its session's folder.
 * - `session-access.ts`: the session's folder as one call of `prepare` uses it.
 */
import { ContextError } from '../../errors.js';
import { isSafePathSegment } from '../../store/safe-path.js';
import type { Message } from '../../types.js';
import { assertMessages } from '../../messages/validate-messages.js';
import { MAX_CALIBRATION_RATIO, MIN_CALIBRATION_RATIO } from '../counting/calibration.js';

/** The folder of a session's records, inside the session's folder. */
export const RECORD_FOLDER = '.records';
/** The record format this package writes and reads. */
export const RECORD_VERSION = 1;

/** What a record holds: a compaction of its span, the token counts of its span, or the provider's figure for it. */
export type RecordKind = 'compact' | 'count' | 'anchor';

/** The span a record covers: the first `messages` messages of a working history, and their fingerprint. */
export interface RecordSpan {
  messages: number;
  fingerprint: string;
}

/** The calibration in force from a record on. */
export interface RecordedCalibration {
  ratio: number;
  samples: number;
}

/** Local token counts of messages, with the tokenizer that counted them (`null`: not counted). */
export interface RecordedTokens {
  tokenizer: string;
  counts: Array<number | null>;
}

/** A compaction: the span became `messages`. */
export interface CompactRecord {
  version: typeof RECORD_VERSION;
  kind: 'compact';
  span: RecordSpan;
  /** What replaced the span, in the canonical shape. */
  messages: Message[];
  tokens?: RecordedTokens | undefined;
  calibration: RecordedCalibration;
  /** The archive of what was compacted, as the summary names it. */
  archiveReference: string | null;
  /** Which summarizer wrote the summary. */
  summarizer: string;
}

/** Token counts of the span's messages. */
export interface CountRecord {
  version: typeof RECORD_VERSION;
  kind: 'count';
  span: RecordSpan;
  tokens: RecordedTokens;
  calibration: RecordedCalibration;
}

/**
 * The provider's usage figure for the span (the prompt that sent those messages), with the
 * calibration learned from it: the next figure of the history learns from the difference.
 */
export interface AnchorRecord {
  version: typeof RECORD_VERSION;
  kind: 'anchor';
  span: RecordSpan;
  /** Prompt tokens the provider counted for the request whose history was the span. */
  inputTokens: number;
  calibration: RecordedCalibration;
}

/** Any record. */
export type SessionRecord = CompactRecord | CountRecord | AnchorRecord;

/** The record of one kind. */
export type RecordOfKind<K extends RecordKind> = Extract<SessionRecord, { kind: K }>;

/** Where a record is, and what its name says. */
export interface RecordName {
  kind: RecordKind;
  span: RecordSpan;
  /** 0 for the first record of a span and kind; `~1`, `~2` ... follow an unusable one. */
  attempt: number;
}

const RECORD_NAME = /^(compact|count|anchor)-(\d{1,9})-([0-9a-f]{64})(?:~(\d{1,4}))?\.json$/;

/** The name of a record inside the records folder. */
function buildRecordName(name: RecordName): string {
  const suffix = name.attempt === 0 ? '' : `~${name.attempt}`;
  return `${name.kind}-${name.span.messages}-${name.span.fingerprint}${suffix}.json`;
}

/** The store key of a record of `sessionId`. */
export function buildRecordKey(sessionId: string, name: RecordName): string {
  return `${sessionId}/${RECORD_FOLDER}/${buildRecordName(name)}`;
}

/** What a record's name (inside the records folder) says, or `undefined` for any other name. */
export function parseRecordName(name: string): RecordName | undefined {
  const match = RECORD_NAME.exec(name);
  if (match === null) return undefined;
  return {
    kind: match[1] as RecordKind,
    span: { messages: Number(match[2]), fingerprint: match[3] as string },
    attempt: match[4] === undefined ? 0 : Number(match[4]),
  };
}

/** A proxy's record of the provider's usage figure for one request: `usage-<n>-<fingerprint>.json`. */
const USAGE_RECORD_NAME = /^usage-(\d{1,9})-([0-9a-f]{64})\.json$/;

/**
 * The store key of the provider's usage figure for the request whose history was `messages`
 * messages with `fingerprint` (see `fingerprint.ts`), in `sessionId`'s records folder. Not a
 * record the manager reads: whoever serves the next request of the history finds it by key.
 */
export function buildUsageRecordKey(sessionId: string, messages: number, fingerprint: string): string {
  return `${sessionId}/${RECORD_FOLDER}/usage-${messages}-${fingerprint}.json`;
}

/** Whether `key` is a record this package writes: `<session>/.records/<kind>-<n>-<fingerprint>.json`. */
export function isSessionRecordKey(key: string): boolean {
  const segments = key.split('/');
  return (
    segments.length === 3 &&
    isSafePathSegment(segments[0]) &&
    segments[1] === RECORD_FOLDER &&
    (RECORD_NAME.test(segments[2] as string) || USAGE_RECORD_NAME.test(segments[2] as string))
  );
}

/** A record, as text. */
export function serializeRecord(record: SessionRecord): string {
  return `${JSON.stringify(record)}\n`;
}

function isCount(value: unknown): value is number | null {
  return value === null || (Number.isSafeInteger(value) && (value as number) >= 0);
}

function readTokens(value: unknown, length: number): RecordedTokens | string {
  if (typeof value !== 'object' || value === null) return 'tokens must be an object { tokenizer, counts }';
  const { tokenizer, counts } = value as Partial<Record<keyof RecordedTokens, unknown>>;
  if (typeof tokenizer !== 'string' || tokenizer === '') return 'tokens.tokenizer must be a non-empty string';
  if (!Array.isArray(counts) || counts.length !== length || !counts.every(isCount)) {
    return `tokens.counts must hold ${length} counts (integers >= 0 or null)`;
  }
  return { tokenizer, counts };
}

function readCalibration(value: unknown): RecordedCalibration | string {
  const { ratio, samples } = (value ?? {}) as Partial<Record<keyof RecordedCalibration, unknown>>;
  if (typeof ratio !== 'number' || !(ratio >= MIN_CALIBRATION_RATIO && ratio <= MAX_CALIBRATION_RATIO)) {
    return `calibration.ratio must be a number in [${MIN_CALIBRATION_RATIO}, ${MAX_CALIBRATION_RATIO}]`;
  }
  if (!Number.isSafeInteger(samples) || (samples as number) < 0) return 'calibration.samples must be an integer >= 0';
  return { ratio, samples: samples as number };
}

/**
 * The record `text` holds, when it is one this package can use for `name`: its version, kind
 * and span as the name says, its fields of the right types. Otherwise why not (for a warning).
 */
export function parseRecord(text: string, name: RecordName): { record: SessionRecord } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'it is not JSON (truncated or corrupt)' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'it is not a JSON object' };
  const fields = value as Record<string, unknown>;
  if (fields.version !== RECORD_VERSION)
    return {
      problem: `its version is ${JSON.stringify(fields.version) ?? 'missing'}; this package reads version ${RECORD_VERSION}`,
    };
  if (fields.kind !== name.kind)
    return { problem: `it holds a ${String(fields.kind)} record, its name says ${name.kind}` };
  const span = fields.span as Partial<RecordSpan> | undefined;
  if (span?.messages !== name.span.messages || span.fingerprint !== name.span.fingerprint)
    return { problem: 'its span does not match its name' };
  const calibration = readCalibration(fields.calibration);
  if (typeof calibration === 'string') return { problem: calibration };
  if (name.kind === 'anchor') {
    const { inputTokens } = fields;
    if (typeof inputTokens !== 'number' || !Number.isFinite(inputTokens) || inputTokens < 0)
      return { problem: 'inputTokens must be a finite number >= 0' };
    return { record: { version: RECORD_VERSION, kind: 'anchor', span: name.span, inputTokens, calibration } };
  }
  if (name.kind === 'count') {
    const tokens = readTokens(fields.tokens, name.span.messages);
    if (typeof tokens === 'string') return { problem: tokens };
    return { record: { version: RECORD_VERSION, kind: 'count', span: name.span, tokens, calibration } };
  }
  const messages = fields.messages;
  try {
    assertMessages(messages, 'messages');
  } catch (error) {
    return { problem: error instanceof ContextError ? error.message : 'its messages are malformed' };
  }
  if (messages.length === 0) return { problem: 'it replaces the span with no message' };
  let tokens: RecordedTokens | undefined;
  if (fields.tokens !== undefined) {
    const read = readTokens(fields.tokens, messages.length);
    if (typeof read === 'string') return { problem: read };
    tokens = read;
  }
  const { archiveReference, summarizer } = fields;
  if (archiveReference !== null && typeof archiveReference !== 'string')
    return { problem: 'archiveReference must be a string or null' };
  if (typeof summarizer !== 'string') return { problem: 'summarizer must be a string' };
  return {
    record: {
      version: RECORD_VERSION,
      kind: 'compact',
      span: name.span,
      messages,
      tokens,
      calibration,
      archiveReference,
      summarizer,
    },
  };
}
