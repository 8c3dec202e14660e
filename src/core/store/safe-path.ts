/**
 * Path-segment safety. `tool_use_id` and `sessionId` are not trusted:
 * both become file or directory names, so anything that could leave `outputDir` rejects
 * before a single byte is written.
 */
import { MAX_PATH_SEGMENT_LENGTH } from '../options/defaults.js';
import { describeValue, InvalidOptionError, UnsafePathError } from '../errors.js';

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

// C0 controls (NUL, newline, ESC, ...), DEL and C1 controls: never part of a directory a user meant.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Throws {@link InvalidOptionError} unless `value` is a directory setting a caller can mean: a
 * string that is not blank and holds no control character (a newline or an escape sequence in
 * a path is a bug or an attack, and would also break the one-line references). `label` names
 * the option or variable. Returns the value as given.
 */
export function assertDirectorySetting(label: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidOptionError(`${label} must be a non-blank string, got ${describeValue(value)}`);
  }
  const control = CONTROL_CHARACTER.exec(value);
  if (control !== null) {
    const code = control[0].charCodeAt(0).toString(16).padStart(4, '0');
    throw new InvalidOptionError(
      `${label} must not contain control characters, got ${describeValue(value)} (U+${code} at index ${control.index})`,
    );
  }
  return value;
}
