import { describe, expect, it } from 'vitest';
import { escapeHtml, renderReplayHtml } from '../../../../src/cli/render/replay-html.js';
import { estimateInputCost, summarizeReplay } from '../../../../src/cli/replay/replay-report.js';
import type { ReplayReport, ReplayRequest } from '../../../../src/cli/replay/replay-report.js';

function buildReport(count: number, source = 'session.json'): ReplayReport {
  const requests: ReplayRequest[] = Array.from({ length: count }, (_, index) => {
    const tokensWithout = (index + 1) * 3000;
    const compacted = index > 0 && index % 6 === 0;
    const tokensWith = 1000 + (index % 6) * 1500;
    return {
      request: index + 1,
      messageIndex: index * 2 + 2,
      messagesWithout: index * 2 + 2,
      tokensWithout,
      messagesWith: 4 + (index % 6),
      tokensWith,
      offloadedResults: index % 2,
      freedChars: (index % 2) * 5000,
      compaction: compacted
        ? { tokensBefore: 9500, tokensAfter: tokensWith, archiveReference: '/store/default/compact-1.json' }
        : null,
      compactionSkipped: null,
      costWithout: estimateInputCost(tokensWithout, 3),
      costWith: estimateInputCost(tokensWith, 3),
      cacheReadTokensWithout: index === 0 ? 0 : index * 3000,
      cacheReadTokensWith: index === 0 || compacted ? 0 : tokensWith - 1500,
      prefixChangedWith: compacted,
      cachedCostWithout: estimateInputCost(tokensWithout, 0.5),
      cachedCostWith: estimateInputCost(tokensWith, 0.75),
      readBacks: index % 3 === 1 ? 1 : 0,
      readBackTokens: index % 3 === 1 ? tokensWith + 2000 : 0,
      readBackCost: index % 3 === 1 ? estimateInputCost(tokensWith + 2000, 3) : 0,
      readBackCachedCost: index % 3 === 1 ? estimateInputCost(tokensWith + 2000, 0.4) : 0,
    };
  });
  return {
    source,
    shape: 'json',
    messageFormat: 'anthropic',
    messageCount: count * 2 + 2,
    toolDefinitionTokens: 0,
    contextTokenLimit: 10_000,
    compactThresholdRatio: 0.92,
    triggerTokens: 9200,
    threshold: 1000,
    summarizer: 'extractive (offline, deterministic)',
    pricePerMTok: 3,
    costFamily: 'anthropic',
    cacheReadRatio: 0.1,
    cacheWriteRatio: 1.25,
    store: null,
    requests,
    totals: summarizeReplay(requests, 10_000),
  };
}

function polylinePoints(html: string, chartId: string, series: string): string[] {
  const svg = html.slice(
    html.indexOf(`<svg id="${chartId}"`),
    html.indexOf('</svg>', html.indexOf(`<svg id="${chartId}"`)),
  );
  const points = new RegExp(`<polyline data-series="${series}"[^>]* points="([^"]*)"`).exec(svg)?.[1];
  return points === undefined ? [] : points.split(' ');
}

describe('replay --html: read-backs', () => {
  it('shows the read-back requests, their tokens and their cost with caching, apart from the requests', () => {
    const report = buildReport(12);
    const html = renderReplayHtml(report);
    // requests 2, 5, 8 and 11 (index % 3 === 1) read one result back
    expect(report.totals.readBacks).toBe(4);
    expect(html).toContain('<div class="label">read-backs</div><div class="value">4</div>');
    expect(html).toContain(`${report.totals.readBackTokens.toLocaleString('en-US')} tokens`);
  });
});

describe('replay --html: the cost with prompt caching', () => {
  it('shows it next to the uncached cost, with the ratios and the prefix changes', () => {
    const report = buildReport(13);
    const html = renderReplayHtml(report);
    expect(html).toContain('with prompt caching');
    expect(html).toContain('prefix read at 0.1x, the rest written at 1.25x; 2 prefix changes with the manager');
    expect(report.totals.prefixChangesWith).toBe(2);
  });
});

describe('replay --html: the page', () => {
  it('draws both series as polylines of one point per request, and the managed one again zoomed', () => {
    const html = renderReplayHtml(buildReport(25));
    expect(polylinePoints(html, 'chart-both', 'without')).toHaveLength(25);
    expect(polylinePoints(html, 'chart-both', 'with')).toHaveLength(25);
    expect(polylinePoints(html, 'chart-managed', 'with')).toHaveLength(25);
    expect(polylinePoints(html, 'chart-managed', 'without')).toHaveLength(0);
  });

  it('plots a request with more tokens higher up', () => {
    const html = renderReplayHtml(buildReport(5));
    const heights = polylinePoints(html, 'chart-both', 'without').map((point) => Number(point.split(',')[1]));
    // SVG y grows downwards: the growing raw history climbs
    for (let index = 1; index < heights.length; index += 1) expect(heights[index]).toBeLessThan(heights[index - 1]!);
  });

  it('rings every compaction and draws the trigger and the window', () => {
    const html = renderReplayHtml(buildReport(25));
    expect(html.match(/<circle class="compaction"/g)).toHaveLength(2 * 4);
    expect(html).toContain('compaction trigger 9,200');
    expect(html).toContain('window 10,000');
  });

  it('shows the headline figures and every request in a table', () => {
    const report = buildReport(25);
    const html = renderReplayHtml(report);
    expect(html).toContain(
      `${report.totals.peakWithout.toLocaleString('en-US')} → ${report.totals.peakWith.toLocaleString('en-US')}`,
    );
    expect(html).toContain('at $3 per million input tokens (an example price)');
    expect(html.match(/<tr><td>/g)).toHaveLength(25);
  });

  it('is self-contained: no script, no stylesheet, image or font fetched from anywhere', () => {
    const html = renderReplayHtml(buildReport(10));
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
    expect(html.match(/https?:\/\/[^"]*/g)).toEqual(['http://www.w3.org/2000/svg', 'http://www.w3.org/2000/svg']);
  });

  it('escapes the file name, which comes from the command line', () => {
    const html = renderReplayHtml(buildReport(3, '<script>alert(1)</script>"x.json'));
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;&#34;x.json');
  });

  it('says when the trigger and the window are above the chart', () => {
    const report = { ...buildReport(3), contextTokenLimit: 200_000, triggerTokens: 184_000 };
    expect(renderReplayHtml(report)).toContain(
      'The window 200,000 and the compaction trigger 184,000 tokens are above the chart.',
    );
  });

  it('draws a single request as one point', () => {
    const html = renderReplayHtml(buildReport(1));
    expect(polylinePoints(html, 'chart-both', 'without')).toHaveLength(1);
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that matter in text and quoted attributes', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
});
