/**
 * Warnings of the library (a compacted context over its target, a skipped compaction) during
 * `replay` and `eval`: written to stderr as they come, without garbling the spinner, each
 * escaped for the terminal; after a few, only counted, since a small window can raise the
 * same warning at every request.
 */
import type { Logger } from '../../core/ports.js';
import type { LlmActivity } from '../llm-activity.js';
import type { TerminalStyle } from '../render/terminal-style.js';
import { toTerminalText } from '../render/terminal-text.js';

/** Warnings written one by one before the rest are only counted. */
const SHOWN_WARNINGS = 5;

/** A logger for the library, and the closing line for warnings left unshown. */
export interface WarningLines {
  logger: Logger;
  /** Writes how many warnings were not shown, if any. */
  finish(): void;
}

/** Warnings through `activity` (stderr), in `style`. */
export function createWarningLines(activity: LlmActivity, style: TerminalStyle): WarningLines {
  let count = 0;
  return {
    logger: {
      warn(message) {
        count += 1;
        if (count <= SHOWN_WARNINGS) activity.writeLine(`${style.yellow('warning:')} ${toTerminalText(message)}`);
      },
    },
    finish() {
      if (count > SHOWN_WARNINGS)
        activity.writeLine(style.yellow(`warning: ${count - SHOWN_WARNINGS} more warnings not shown`));
    },
  };
}
