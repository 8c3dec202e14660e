import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFloor, type FloorInput } from '../../../../bench/floor/cheapest-schedule.js';

const ANTHROPIC = { readRatio: 0.1, writeRatio: 1.25 };

/**
 * system 10 | user 10 | assistant 5 | result 100 (90 saved offloaded) | assistant 5 | result 10 | assistant 5:
 * three requests, of 20, 125 and 140 tokens sent unmanaged.
 */
const TINY: FloorInput = {
  messageTokens: [10, 10, 5, 100, 5, 10, 5],
  offloadSavings: [0, 0, 0, 90, 0, 0, 0],
  systemEnd: 1,
  turnEnds: [2, 4, 6],
  fixedTokens: 0,
  summaryTokens: 20,
  window: 1000,
  ...ANTHROPIC,
};

describe('computeFloor on a hand-checked transcript', () => {
  it('sends everything when the window holds it: a rewrite would not pay back in one request', () => {
    // 1.25 × 20, then 0.1 × 20 + 1.25 × 105, then 0.1 × 125 + 1.25 × 15
    expect(computeFloor(TINY).cost).toBeCloseTo(25 + 133.25 + 31.25, 9);
    expect(computeFloor(TINY).prefixChanges).toBe(0);
  });

  it('offloads the aged result when the window demands it, rather than compacting', () => {
    // request 2 cannot fit (its newest result is too young to go) and is sent as is; request 3
    // offloads the result: 25 tokens read before it, 25 written from it (50 in all); a compaction
    // to the last turn (read 10, write 35: 44.75) may not happen, as the offload fits
    const result = computeFloor({ ...TINY, window: 100 });
    expect(result.cost).toBeCloseTo(25 + 133.25 + (0.1 * 25 + 1.25 * 25), 9);
    expect(result.requestsOverWindow).toBe(1);
    expect(result.prefixChanges).toBe(1);
  });

  it('rewrites early when the requests after it repay the rewrite', () => {
    // eight more short turns: each later request reads 90 fewer tokens (9 units) once the result is gone
    const turns = 8;
    const input: FloorInput = {
      ...TINY,
      messageTokens: [...TINY.messageTokens, ...Array.from({ length: turns * 2 }, () => 5)],
      offloadSavings: [...TINY.offloadSavings, ...Array.from({ length: turns * 2 }, () => 0)],
      turnEnds: [...TINY.turnEnds, ...Array.from({ length: turns }, (_, turn) => 8 + turn * 2)],
    };
    expect(computeFloor(input).cost).toBeLessThan(priceUnmanaged(input));
  });

  it('never costs more than sending everything when everything fits', () => {
    fc.assert(
      fc.property(arbitraryInput(6), (input) => {
        const roomy = { ...input, window: Number.MAX_SAFE_INTEGER };
        expect(computeFloor(roomy).cost).toBeLessThanOrEqual(priceUnmanaged(roomy) + 1e-9);
      }),
    );
  });
});

describe('computeFloor when only a compaction fits', () => {
  it('compacts to the newest turn when no offload keeps the request in the window', () => {
    // window 40: request 3 offloaded is still 50 tokens; compacted to the last turn it is
    // system 10 + summary 20 + assistant 5 + result 10 = 45 > 40, with the result offloaded
    // nothing changes (it saves nothing): no state fits, the smallest (45) is taken
    const result = computeFloor({ ...TINY, window: 40, summaryTokens: 20 });
    expect(result.cost).toBeCloseTo(25 + 133.25 + (0.1 * 10 + 1.25 * 35), 9);
    expect(result.requestsOverWindow).toBe(2);
    expect(result.prefixChanges).toBe(1);
  });
});

describe('computeFloor against an exhaustive search of the same family', () => {
  it('finds no less with fewer candidate boundaries, where both fit every request (a subset of the schedules)', () => {
    fc.assert(
      fc.property(arbitraryInput(6), (input) => {
        const thinned = computeFloor(input, 3);
        fc.pre(thinned.requestsOverWindow === 0);
        expect(thinned.cost).toBeGreaterThanOrEqual(computeFloor(input).cost - 1e-9);
      }),
    );
  });

  it('finds the cheapest sequence of states on small random transcripts', () => {
    fc.assert(
      fc.property(arbitraryInput(4), (input) => {
        expect(computeFloor(input).cost).toBeCloseTo(searchExhaustively(input).cost, 6);
      }),
      { numRuns: 60 },
    );
  });

  it('counts the prefix changes of one of the cheapest sequences', () => {
    fc.assert(
      fc.property(arbitraryInput(4), (input) => {
        expect(searchExhaustively(input).cheapestChanges).toContain(computeFloor(input).prefixChanges);
      }),
      { numRuns: 60 },
    );
  });
});

/** The unmanaged cost: each request reads the one before it whole. */
function priceUnmanaged(input: FloorInput): number {
  let cost = 0;
  let previous = 0;
  for (const end of input.turnEnds) {
    const tokens = input.fixedTokens + input.messageTokens.slice(0, end).reduce((sum, value) => sum + value, 0);
    cost += input.readRatio * previous + input.writeRatio * (tokens - previous);
    previous = tokens;
  }
  return cost;
}

/** Transcripts of 1 system message and `requests` turns of an assistant message and a tool result each. */
function arbitraryInput(requests: number): fc.Arbitrary<FloorInput> {
  return fc
    .record({
      results: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: requests, maxLength: requests }),
      references: fc.array(fc.integer({ min: 1, max: 30 }), { minLength: requests, maxLength: requests }),
      assistant: fc.integer({ min: 1, max: 30 }),
      summaryTokens: fc.integer({ min: 1, max: 200 }),
      fixedTokens: fc.integer({ min: 0, max: 50 }),
      window: fc.integer({ min: 50, max: 1500 }),
      readRatio: fc.constantFrom(0.1, 0.25, 0.5, 1),
      writeRatio: fc.constantFrom(1, 1.25, 2),
    })
    .map(({ results, references, assistant, ...rest }) => {
      const messageTokens = [20, 15];
      const offloadSavings = [0, 0];
      const turnEnds: number[] = [];
      results.forEach((size, index) => {
        turnEnds.push(messageTokens.length);
        messageTokens.push(assistant, size);
        offloadSavings.push(0, Math.max(0, size - (references[index] ?? 0)));
      });
      return { messageTokens, offloadSavings, systemEnd: 1, turnEnds, ...rest };
    });
}

/**
 * Tries every sequence of states (c, b), each request's context built message by message: the
 * cheapest cost, and the prefix changes (requests not starting with the whole request before
 * them) of each sequence that costs it.
 */
function searchExhaustively(input: FloorInput): { cost: number; cheapestChanges: number[] } {
  const bounds = [input.systemEnd, ...input.turnEnds.filter((end) => end > input.systemEnd)];
  const contextOf = (end: number, c: number, b: number): Array<{ key: string; tokens: number }> => {
    const items = [{ key: 'fixed', tokens: input.fixedTokens }];
    for (let m = 0; m < input.systemEnd; m += 1) items.push({ key: `m${m}`, tokens: input.messageTokens[m]! });
    if (c > input.systemEnd) items.push({ key: `summary${c}`, tokens: input.summaryTokens });
    for (let m = c; m < end; m += 1) {
      const offloaded = m < b && input.offloadSavings[m]! > 0;
      items.push({
        key: `m${m}${offloaded ? 'ref' : ''}`,
        tokens: input.messageTokens[m]! - (offloaded ? input.offloadSavings[m]! : 0),
      });
    }
    return items;
  };
  const total = (items: ReadonlyArray<{ tokens: number }>): number => items.reduce((sum, item) => sum + item.tokens, 0);
  const leaves: Array<{ cost: number; changes: number }> = [];
  const visit = (
    request: number,
    previous: Array<{ key: string; tokens: number }> | undefined,
    point: number,
    cost: number,
    changes: number,
  ): void => {
    if (request === input.turnEnds.length) {
      leaves.push({ cost, changes });
      return;
    }
    const end = input.turnEnds[request]!;
    const previousEnd = request === 0 ? input.systemEnd : input.turnEnds[request - 1]!;
    const states: Array<{ c: number; b: number; context: Array<{ key: string; tokens: number }> }> = [];
    for (const c of bounds)
      for (const b of bounds)
        if (c <= b && b <= previousEnd && c <= previousEnd) states.push({ c, b, context: contextOf(end, c, b) });
    const smallest = Math.min(...states.map((state) => total(state.context)));
    const limit = Math.max(smallest, input.window);
    // a compaction (a later point) only when no state keeping the current point fits the window
    const fitsWithout = states.some((state) => state.c === point && total(state.context) <= input.window);
    for (const { c, context } of states) {
      if (total(context) > limit) continue;
      if (c < point || (c > point && fitsWithout)) continue;
      let shared = 0;
      if (previous !== undefined) {
        let index = 0;
        while (index < previous.length && index < context.length && previous[index]!.key === context[index]!.key)
          index += 1;
        shared = total(context.slice(0, index));
      }
      const changed = previous !== undefined && shared < total(previous) ? 1 : 0;
      visit(
        request + 1,
        context,
        c,
        cost + input.readRatio * shared + input.writeRatio * (total(context) - shared),
        changes + changed,
      );
    }
  };
  visit(0, undefined, input.systemEnd, 0, 0);
  const cost = Math.min(...leaves.map((leaf) => leaf.cost));
  return { cost, cheapestChanges: leaves.filter((leaf) => leaf.cost <= cost + 1e-6).map((leaf) => leaf.changes) };
}
