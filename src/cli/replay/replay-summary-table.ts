/**
 * The summary table of `agent-context replay` in the terminal: without and with the context
 * manager side by side (peak context, input tokens of all requests, the estimated cost without
 * and with prompt caching, requests over the window), the read-backs the manager's offloads
 * cost (not in the figures above), what the manager did, and its compactions one per line.
 */
import { formatQuantity, groupDigits } from '../../core/text/figures.js';
import { formatPercent, padEnd, padStart } from '../render/format-figures.js';
import type { TerminalStyle } from '../render/terminal-style.js';
import { toTerminalText } from '../render/terminal-text.js';
import type { ReplayReport } from './replay-report.js';

const LABEL_WIDTH = 30;
const VALUE_WIDTH = 16;
/** Compactions listed one by one; more are counted. */
const LISTED_COMPACTIONS = 8;

const DOLLARS = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** `$1.82`; a cost above 0 that rounds to 0 shows as `<$0.01`. */
export function formatDollars(amount: number): string {
  if (amount > 0 && amount < 0.005) return '<$0.01';
  return DOLLARS.format(amount);
}

function row(label: string, without: string, withManager: string, note = ''): string {
  return `  ${padEnd(label, LABEL_WIDTH)}${padStart(without, VALUE_WIDTH)}${padStart(withManager, VALUE_WIDTH)}${note === '' ? '' : `  ${note}`}`;
}

/** The table and the list of compactions, as lines. */
export function renderReplaySummary(report: ReplayReport, style: TerminalStyle): string[] {
  const { totals } = report;
  const saved = totals.tokensWithout === 0 ? '' : style.green(`-${formatPercent(Math.max(0, totals.savedShare))}`);
  const lines = [
    style.bold(row('', 'without manager', 'with manager')),
    row('peak context (tokens)', groupDigits(totals.peakWithout), groupDigits(totals.peakWith)),
    row('input tokens, all requests', groupDigits(totals.tokensWithout), groupDigits(totals.tokensWith), saved),
    row(
      'estimated input cost',
      formatDollars(totals.costWithout),
      formatDollars(totals.costWith),
      style.dim(`at $${report.pricePerMTok}/MTok`),
    ),
    row(
      '  with prompt caching',
      formatDollars(totals.cachedCostWithout),
      formatDollars(totals.cachedCostWith),
      style.dim(
        `${groupDigits(totals.prefixChangesWith)} prefix ${totals.prefixChangesWith === 1 ? 'change' : 'changes'} with the manager`,
      ),
    ),
    row(
      'requests over the window',
      `${groupDigits(totals.requestsOverWindowWithout)} of ${groupDigits(totals.requests)}`,
      `${groupDigits(totals.requestsOverWindowWith)} of ${groupDigits(totals.requests)}`,
    ),
    // one more request per result the model got cut or as a reference
    row(
      'read-backs',
      '-',
      groupDigits(totals.readBacks),
      totals.readBacks === 0
        ? ''
        : style.dim(
            `${formatQuantity(totals.readBackTokens, 'token')}, ${formatDollars(totals.readBackCachedCost)} with caching`,
          ),
    ),
    row(
      'tool results offloaded',
      '-',
      groupDigits(totals.offloadedResults),
      totals.freedChars > 0 ? style.dim(`${formatQuantity(totals.freedChars, 'char')} freed`) : '',
    ),
    row(
      'compactions',
      '-',
      groupDigits(totals.compactions),
      totals.skippedCompactions > 0 ? style.yellow(`${groupDigits(totals.skippedCompactions)} needed but skipped`) : '',
    ),
  ];
  const compactions = report.requests.filter((request) => request.compaction !== null);
  for (const request of compactions.slice(0, LISTED_COMPACTIONS)) {
    const compaction = request.compaction!;
    // a temporary store is gone by now: its paths would lead nowhere
    const archive =
      compaction.archiveReference === null || report.store === null
        ? ''
        : style.dim(`  archive ${toTerminalText(compaction.archiveReference)}`);
    lines.push(
      `    before request ${request.request}: ${groupDigits(compaction.tokensBefore)} → ${groupDigits(compaction.tokensAfter)} tokens${archive}`,
    );
  }
  if (compactions.length > LISTED_COMPACTIONS)
    lines.push(
      style.dim(`    and ${groupDigits(compactions.length - LISTED_COMPACTIONS)} more (--json lists every request)`),
    );
  const skipped = report.requests.filter((request) => request.compactionSkipped !== null);
  for (const request of skipped.slice(0, LISTED_COMPACTIONS)) {
    lines.push(
      style.yellow(
        `    before request ${request.request}: compaction needed, skipped (${toTerminalText(request.compactionSkipped)})`,
      ),
    );
  }
  if (skipped.length > LISTED_COMPACTIONS)
    lines.push(style.dim(`    and ${groupDigits(skipped.length - LISTED_COMPACTIONS)} more skipped`));
  return lines;
}
