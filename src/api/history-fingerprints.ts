/**
 * The context manager's history fingerprints and record names, over Node's sha256, for an
 * adapter that keeps records of its own beside the manager's (the proxy's usage figures): a
 * history fingerprinted here gets the fingerprint the manager's records use, and a record named
 * here lives in the session's records folder, where pruning and the session pages find it.
 */
import {
  serializeForFingerprint,
  sha256Hex,
  startHistoryHash,
  type RunningHash,
} from '../core/manage/records/fingerprint.js';
import { buildUsageRecordKey } from '../core/manage/records/session-records.js';
import { sha256Hashing } from '../infrastructure/sha256-hashing.js';

export type { RunningHash };
export { buildUsageRecordKey, serializeForFingerprint };

/** The hex sha256 of `text` (UTF-8): a content key, the same in every process. */
export function hashText(text: string): string {
  return sha256Hex(sha256Hashing, text);
}

/**
 * A fresh history fingerprint, seeded as the manager's: feed it whatever seeds a history of
 * yours (a session key), then each message through {@link serializeForFingerprint}.
 */
export function startHistoryFingerprint(): RunningHash {
  return startHistoryHash(sha256Hashing);
}
