/**
 * Path-segment safety (DESIGN §5). The specs trust `tool_use_id` and `sessionId`; we do not:
 * both become file or directory names, so anything that could leave `outputDir` rejects
 * before a single byte is written.
 */
import { MAX_PATH_SEGMENT_LENGTH } from './defaults.js';
import { describeValue, UnsafePathError } from './errors.js';

const SAFE_SEGMENT = /^[A-Za-z0-9._-]+$/;

/** Whether `value` may be used as one file or directory name. */
export function isSafePathSegment(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length >= 1 &&
    value.length <= MAX_PATH_SEGMENT_LENGTH &&
    value !== '.' &&
    value !== '..' &&
    SAFE_SEGMENT.test(value)
  );
}

/**
 * Throws {@link UnsafePathError} unless `value` is 1–200 chars of `[A-Za-z0-9._-]` and not
 * `.` or `..`. `label` names the field in the message, e.g. `messages[2].content[0].tool_use_id`.
 */
export function assertSafePathSegment(label: string, value: unknown): string {
  if (!isSafePathSegment(value)) {
    throw new UnsafePathError(
      `${label} must be 1-${MAX_PATH_SEGMENT_LENGTH} characters of [A-Za-z0-9._-] and not "." or "..", got ${describeValue(value)}`,
    );
  }
  return value;
}
