import { describe, expect, it } from 'vitest';
import { createEmptyFigures } from '../../../../bench/peers/measure-run.js';
import { findWorstTranscript, renderCostTable, type WindowFigures } from '../../../../bench/peers/peer-report.js';

function buildWindow(transcripts: WindowFigures['transcripts']): WindowFigures {
  const unmanaged = { ...createEmptyFigures(), cachedCost: 10 };
  const own = { ...createEmptyFigures(), cachedCost: 6, prefixChanges: 4 };
  return {
    window: 30_000,
    unmanaged,
    systems: [{ name: 'this package', hasStore: true, isPackage: true, figures: own, wallMs: 1 }],
    floor: { cost: 5, requestsOverWindow: 0, prefixChanges: 2 },
    transcripts,
  };
}

describe('the worst transcript', () => {
  it("is the one where this package's cost over unmanaged is highest, and counts those above unmanaged", () => {
    const window = buildWindow([
      { name: 'a', unmanaged: 4, own: 3, floor: 2 },
      { name: 'b', unmanaged: 2, own: 2.5, floor: 1.5 },
      { name: 'c', unmanaged: 4, own: 4.2, floor: 3 },
    ]);
    const worst = findWorstTranscript(window);
    expect(worst.worst?.name).toBe('b');
    expect([worst.costlier, worst.total]).toEqual([2, 3]);
  });
});

describe('the cost table', () => {
  it("prints each window's cost as a share of unmanaged with this package's ratio to the floor, and the worst transcript", () => {
    const table = renderCostTable([buildWindow([{ name: 'b', unmanaged: 2, own: 2.5, floor: 1.5 }])], 'anthropic');
    expect(table).toContain('| 30K cost | 50.0% | **60.0%** (1.20x the floor) |');
    expect(table).toContain('| 30K prefix changes | 2 | 4 |');
    expect(table).toContain(
      '30K: worst transcript b, this package at 125.0% of unmanaged (floor 75.0%); 1 of 1 transcripts',
    );
  });
});
