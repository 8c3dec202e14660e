/**
 * The page `agent-context replay --html report.html` writes: one self-contained HTML file (no
 * script, no font, no request to anywhere) with the curve of context tokens per model request
 * without and with the context manager as inline SVG, a second chart zoomed on the managed
 * context with the trigger and the compactions, the headline figures and a table of every
 * request. Every text from the transcript or the command line is escaped.
 */
import type { ReplayReport } from '../replay/replay-report.js';
import { formatDollars } from '../replay/replay-summary-table.js';
import { formatQuantity, groupDigits } from '../../core/text/figures.js';
import { formatPercent } from './format-figures.js';
import { computeNiceScale, formatTokensShort } from './replay-chart.js';

/** Colours of the two series (also in the legend). */
const COLORS = {
  without: '#d97706',
  with: '#0f766e',
  trigger: '#dc2626',
  window: '#6b7280',
  grid: '#e5e7eb',
  axis: '#6b7280',
} as const;

/** Size of the charts in SVG units (the page scales them to its width). */
const CHART_WIDTH = 1100;
const MAIN_CHART_HEIGHT = 270;
const ZOOM_CHART_HEIGHT = 170;
const MARGIN = { left: 64, right: 16, top: 14, bottom: 34 } as const;
/** Up to this many requests, each point gets a dot. */
const DOTTED_POINTS = 80;

/** `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

interface ChartLine {
  /** `data-series` of the polyline. */
  series: 'without' | 'with';
  label: string;
  color: string;
  values: readonly number[];
}

interface ChartRule {
  tokens: number;
  label: string;
  color: string;
  /** Which end of the line its label sits at (two close lines keep their labels apart). */
  labelAt: 'start' | 'end';
}

interface ChartSpec {
  id: string;
  title: string;
  height: number;
  lines: readonly ChartLine[];
  rules: readonly ChartRule[];
  /** 0-based requests marked with a ring on the managed line (compactions). */
  marks: readonly number[];
  /** The managed line's values, for the marks. */
  markValues: readonly number[];
}

function formatNumber(value: number): string {
  return Number(value.toFixed(1)).toString();
}

function renderChart(spec: ChartSpec): string {
  const count = Math.max(1, spec.lines[0]?.values.length ?? 1);
  const plotWidth = CHART_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = spec.height - MARGIN.top - MARGIN.bottom;
  const peak = Math.max(1, ...spec.lines.flatMap((line) => line.values));
  const { top, step } = computeNiceScale(peak * 1.05);
  const xOf = (index: number): number =>
    MARGIN.left + (count === 1 ? plotWidth / 2 : (index / (count - 1)) * plotWidth);
  const yOf = (tokens: number): number => MARGIN.top + plotHeight - (Math.min(tokens, top) / top) * plotHeight;
  const parts: string[] = [];

  for (let tokens = 0; tokens <= top; tokens += step) {
    const y = formatNumber(yOf(tokens));
    parts.push(
      `<line x1="${MARGIN.left}" x2="${CHART_WIDTH - MARGIN.right}" y1="${y}" y2="${y}" stroke="${COLORS.grid}"/>`,
    );
    parts.push(
      `<text x="${MARGIN.left - 8}" y="${y}" dy="4" text-anchor="end" class="tick">${escapeHtml(formatTokensShort(tokens))}</text>`,
    );
  }
  // every request up to 20, else 10 evenly spread
  const xTicks = count <= 20 ? count : 10;
  for (let tick = 0; tick < xTicks; tick += 1) {
    const index = xTicks === 1 ? 0 : Math.round((tick * (count - 1)) / (xTicks - 1));
    parts.push(
      `<text x="${formatNumber(xOf(index))}" y="${spec.height - MARGIN.bottom + 18}" text-anchor="middle" class="tick">${index + 1}</text>`,
    );
  }
  parts.push(
    `<text x="${CHART_WIDTH - MARGIN.right}" y="${spec.height - 2}" text-anchor="end" class="tick">model request</text>`,
  );

  for (const rule of spec.rules) {
    if (rule.tokens > top) continue;
    const y = formatNumber(yOf(rule.tokens));
    parts.push(
      `<line class="rule" x1="${MARGIN.left}" x2="${CHART_WIDTH - MARGIN.right}" y1="${y}" y2="${y}" stroke="${rule.color}" stroke-dasharray="6 4" stroke-width="1.5"/>`,
      `<text x="${rule.labelAt === 'end' ? CHART_WIDTH - MARGIN.right - 4 : MARGIN.left + 4}" y="${y}" dy="-5" text-anchor="${rule.labelAt}" class="rule-label" fill="${rule.color}">${escapeHtml(rule.label)}</text>`,
    );
  }
  for (const line of spec.lines) {
    const points = line.values.map((tokens, index) => `${formatNumber(xOf(index))},${formatNumber(yOf(tokens))}`);
    parts.push(
      `<polyline data-series="${line.series}" fill="none" stroke="${line.color}" stroke-width="2.5" stroke-linejoin="round" points="${points.join(' ')}"><title>${escapeHtml(line.label)}</title></polyline>`,
    );
    if (line.values.length <= DOTTED_POINTS) {
      line.values.forEach((tokens, index) => {
        parts.push(
          `<circle cx="${formatNumber(xOf(index))}" cy="${formatNumber(yOf(tokens))}" r="3" fill="${line.color}"><title>request ${index + 1}: ${groupDigits(tokens)} tokens ${escapeHtml(line.label)}</title></circle>`,
        );
      });
    }
  }
  for (const index of spec.marks) {
    const tokens = spec.markValues[index] ?? 0;
    parts.push(
      `<circle class="compaction" cx="${formatNumber(xOf(index))}" cy="${formatNumber(yOf(tokens))}" r="7" fill="none" stroke="${COLORS.trigger}" stroke-width="2"><title>compacted before request ${index + 1}</title></circle>`,
    );
  }
  return `<svg id="${spec.id}" role="img" aria-label="${escapeHtml(spec.title)}" viewBox="0 0 ${CHART_WIDTH} ${spec.height}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}

function renderFigure(label: string, value: string, detail: string): string {
  return `<div class="figure"><div class="label">${escapeHtml(label)}</div><div class="value">${value}</div><div class="detail">${detail}</div></div>`;
}

function renderRequestTable(report: ReplayReport): string {
  const rows = report.requests.map((request) => {
    const events: string[] = [];
    if (request.offloadedResults > 0) events.push(`${groupDigits(request.offloadedResults)} offloaded`);
    if (request.compaction !== null)
      events.push(
        `compacted ${groupDigits(request.compaction.tokensBefore)} → ${groupDigits(request.compaction.tokensAfter)}`,
      );
    if (request.compactionSkipped !== null) events.push(`compaction skipped (${request.compactionSkipped})`);
    return `<tr><td>${request.request}</td><td>${groupDigits(request.tokensWithout)}</td><td>${groupDigits(request.tokensWith)}</td><td>${escapeHtml(formatDollars(request.costWithout))}</td><td>${escapeHtml(formatDollars(request.costWith))}</td><td>${escapeHtml(events.join('; '))}</td></tr>`;
  });
  return `<details><summary>Every request (${groupDigits(report.requests.length)})</summary><table><thead><tr><th>request</th><th>tokens without</th><th>tokens with</th><th>cost without</th><th>cost with</th><th>what the manager did</th></tr></thead><tbody>${rows.join('')}</tbody></table></details>`;
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#111827;background:#fff}
main{max-width:1140px;margin:0 auto;padding:18px 20px 28px}h1{font-size:21px;margin:0 0 2px}h1 code{font-size:18px}
.sub{color:#4b5563;margin:0 0 12px}.figures{display:grid;grid-template-columns:repeat(3,1fr);gap:12px;margin:0 0 10px}
.figure{flex:1;border:1px solid #e5e7eb;border-radius:8px;padding:8px 12px}.figure .label{color:#6b7280;font-size:13px}
.figure .value{font-size:19px;font-weight:600;white-space:nowrap}.figure .detail{color:#6b7280;font-size:13px}
h2{font-size:15px;margin:10px 0 2px}.legend{display:flex;gap:18px;font-size:13px;color:#374151;margin:0 0 2px}
.swatch{display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:6px}
svg{width:100%;height:auto;display:block}.tick{font-size:12px;fill:${COLORS.axis}}.rule-label{font-size:12px;paint-order:stroke;stroke:#fff;stroke-width:4px}
.saved{color:#047857}.note{color:#6b7280;font-size:13px}table{border-collapse:collapse;font-size:13px;margin-top:6px}
td,th{border-bottom:1px solid #e5e7eb;padding:3px 10px;text-align:right}td:last-child,th:last-child{text-align:left}
`;

export function renderReplayHtml(report: ReplayReport): string {
  const { totals } = report;
  const without = report.requests.map((request) => request.tokensWithout);
  const withManager = report.requests.map((request) => request.tokensWith);
  const compactions = report.requests.flatMap((request, index) => (request.compaction === null ? [] : [index]));
  const rules: ChartRule[] = [
    {
      tokens: report.contextTokenLimit,
      label: `window ${groupDigits(report.contextTokenLimit)}`,
      color: COLORS.window,
      labelAt: 'start',
    },
    {
      tokens: report.triggerTokens,
      label: `compaction trigger ${groupDigits(report.triggerTokens)}`,
      color: COLORS.trigger,
      labelAt: 'end',
    },
  ];
  const lineWithout: ChartLine = {
    series: 'without',
    label: 'without the manager',
    color: COLORS.without,
    values: without,
  };
  const lineWith: ChartLine = { series: 'with', label: 'with the manager', color: COLORS.with, values: withManager };
  const main = renderChart({
    id: 'chart-both',
    title: 'Context tokens per model request, without and with the manager',
    height: MAIN_CHART_HEIGHT,
    lines: [lineWithout, lineWith],
    rules,
    marks: compactions,
    markValues: withManager,
  });
  const zoom = renderChart({
    id: 'chart-managed',
    title: 'Context tokens per model request with the manager',
    height: ZOOM_CHART_HEIGHT,
    lines: [lineWith],
    rules,
    marks: compactions,
    markValues: withManager,
  });
  const hiddenRules = rules.filter(
    (rule) => rule.tokens > computeNiceScale(Math.max(1, totals.peakWithout, totals.peakWith) * 1.05).top,
  );
  const above =
    hiddenRules.length === 0
      ? ''
      : ` The ${hiddenRules.map((rule) => escapeHtml(rule.label)).join(' and the ')} tokens ${hiddenRules.length === 1 ? 'is' : 'are'} above the chart.`;
  const saved =
    totals.tokensWithout === 0
      ? ''
      : `<span class="saved">−${escapeHtml(formatPercent(Math.max(0, totals.savedShare)))}</span>`;
  const legend = (lines: readonly ChartLine[]): string =>
    `<div class="legend">${lines.map((line) => `<span><span class="swatch" style="background:${line.color}"></span>${escapeHtml(line.label)}</span>`).join('')}${
      compactions.length === 0
        ? ''
        : `<span><span class="swatch" style="background:${COLORS.trigger}"></span>compaction (ring)</span>`
    }</div>`;
  const ratio = formatPercent(report.compactThresholdRatio);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-context replay: ${escapeHtml(report.source)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Context per model request: <code>${escapeHtml(report.source)}</code></h1>
<p class="sub">${groupDigits(totals.requests)} requests through the context manager, window ${groupDigits(report.contextTokenLimit)} tokens (compaction at ${escapeHtml(ratio)}: ${groupDigits(report.triggerTokens)}), summaries ${escapeHtml(report.summarizer)}</p>
<section class="figures">
${renderFigure('peak context', `${groupDigits(totals.peakWithout)} → ${groupDigits(totals.peakWith)}`, 'tokens, without → with the manager')}
${renderFigure('input tokens, all requests', `${groupDigits(totals.tokensWithout)} → ${groupDigits(totals.tokensWith)}`, saved)}
${renderFigure('estimated input cost', `${escapeHtml(formatDollars(totals.costWithout))} → ${escapeHtml(formatDollars(totals.costWith))}`, `at $${escapeHtml(String(report.pricePerMTok))} per million input tokens (an example price)`)}
${renderFigure('with prompt caching', `${escapeHtml(formatDollars(totals.cachedCostWithout))} → ${escapeHtml(formatDollars(totals.cachedCostWith))}`, `${escapeHtml(report.costFamily)} prices: prefix read at ${escapeHtml(String(report.cacheReadRatio))}x, the rest written at ${escapeHtml(String(report.cacheWriteRatio))}x; ${groupDigits(totals.prefixChangesWith)} prefix changes with the manager`)}
${renderFigure('read-backs', groupDigits(totals.readBacks), `${groupDigits(totals.readBackTokens)} tokens, ${escapeHtml(formatDollars(totals.readBackCachedCost))} with prompt caching, not in the figures above: one more request per result the model got cut or as a reference`)}
${renderFigure('what the manager did', `${escapeHtml(formatQuantity(totals.offloadedResults, 'offload'))} · ${escapeHtml(formatQuantity(totals.compactions, 'compaction'))}`, `${groupDigits(totals.freedChars)} chars of tool results moved to the store`)}
</section>
<h2>Context tokens per model request</h2>
${legend([lineWithout, lineWith])}
${main}
<h2>With the manager, zoomed</h2>
${legend([lineWith])}
${zoom}
<p class="note">Tokens are local estimates (o200k_base) of what each request sends, tool definitions included; the first cost puts every input token at the same price; the cost with prompt caching reads the previous request's identical prefix (whole messages) from the cache and writes the rest.${above}</p>
${renderRequestTable(report)}
</main>
</body>
</html>
`;
}
