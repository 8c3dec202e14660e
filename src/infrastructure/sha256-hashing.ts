/**
 * sha256 through Node's crypto, as the context manager's hashing port: content names,
 * history fingerprints and sessions derived from content.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Hashing, RunningHash } from '../core/manage/records/fingerprint.js';

function wrap(hash: Hash): RunningHash {
  return {
    update(text) {
      hash.update(text, 'utf8');
    },
    copy: () => wrap(hash.copy()),
    // a copy is read, so this hash can go on
    digest: () => hash.copy().digest('hex'),
  };
}

/** sha256 over UTF-8. */
export const sha256Hashing: Hashing = { create: () => wrap(createHash('sha256')) };
