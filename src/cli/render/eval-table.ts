/**
 * The table of `agent-context eval` in the terminal: one row per kind of probe (what the
 * compacted context should still hold), how many of its probes were kept, the first subjects
 * that were not, and the score.
 */
import type { EvalScore } from '../replay/eval-score.js';
import { formatPercent, padEnd, padStart, truncateText } from './format-figures.js';
import type { TerminalStyle } from './terminal-style.js';
import { toTerminalText } from './terminal-text.js';

const LABEL_WIDTH = 28;
const KEPT_WIDTH = 7;
/** Missing subjects named per row; more are counted. */
const NAMED_MISSING = 3;

/** Options of {@link renderEvalTable}. */
export interface EvalTableOptions {
  style: TerminalStyle;
  /** Columns a line may take. */
  width: number;
}

/** `missing: a, b (+3 more)`, cut to `width` characters, escaped for the terminal. */
function describeMissing(missing: readonly string[], width: number): string {
  if (missing.length === 0) return '';
  const named = missing.slice(0, NAMED_MISSING).map((subject) => toTerminalText(subject));
  const more = missing.length > NAMED_MISSING ? ` (+${missing.length - NAMED_MISSING} more)` : '';
  return truncateText(`missing: ${named.join(', ')}${more}`, Math.max(20, width));
}

/** The table's lines: a header, one row per kind, the score. */
export function renderEvalTable(score: EvalScore, options: EvalTableOptions): string[] {
  const { style } = options;
  const detailWidth = options.width - 2 - LABEL_WIDTH - KEPT_WIDTH - 4;
  const lines = [style.bold(`  ${padEnd('the compacted context holds', LABEL_WIDTH)}${padStart('kept', KEPT_WIDTH)}`)];
  for (const kind of score.kinds) {
    if (kind.probes === 0) {
      lines.push(
        `  ${padEnd(kind.label, LABEL_WIDTH)}${padStart('-', KEPT_WIDTH)}  ${style.dim('none in the transcript')}`,
      );
      continue;
    }
    const kept = `${kind.kept}/${kind.probes}`;
    const all = kind.kept === kind.probes;
    const mark = all ? style.green('✓') : style.red('✗');
    const detail = all ? '' : ` ${style.dim(describeMissing(kind.missing, detailWidth))}`;
    lines.push(`  ${padEnd(kind.label, LABEL_WIDTH)}${padStart(kept, KEPT_WIDTH)}  ${mark}${detail}`);
  }
  const total = `${score.kept}/${score.total}`;
  lines.push(
    style.bold(`  ${padEnd('score', LABEL_WIDTH)}${padStart(total, KEPT_WIDTH)}  ${formatPercent(score.score)}`),
  );
  return lines;
}
