import { describe, expect, it } from 'vitest';
import { createContextManager } from '../../../../../src/api/context-manager.js';
import { shouldCompact } from '../../../../../src/api/tokens.js';
import {
  chooseCompactionSpan,
  computeCompactionRoom,
  computeCompactionTarget,
} from '../../../../../src/core/manage/compaction/compaction-policy.js';
import { resolveEstimateRatio } from '../../../../../src/core/manage/counting/calibration.js';
import { silentLogger } from '../../../../../src/core/ports.js';
import type { Message } from '../../../../../src/core/types.js';
import { createMemoryStore } from '../../../../../src/stores/memory-store.js';
import { quarterCounter, SYSTEM, TASK, textOf, toolTurn } from '../manager-fixtures.js';

const WINDOW = 2000;

/** A history of prose only (nothing to offload): the system prompt, the task, `turns` pairs of `chars` characters each. */
function proseHistory(turns: number, chars: number): Message[] {
  const history: Message[] = [SYSTEM, TASK];
  for (let turn = 0; turn < turns; turn += 1) {
    history.push({ role: 'assistant', content: textOf(chars, `step${turn}`) });
    history.push({ role: 'user', content: textOf(chars, `reply${turn}`) });
  }
  return history;
}

/** Whether a new manager's first `prepare` of `history` reached the trigger (it compacted, or tried to). */
async function managerCompacts(history: Message[], provider: 'anthropic' | 'openai' | 'other'): Promise<boolean> {
  const manager = createContextManager({
    store: createMemoryStore(),
    contextTokenLimit: WINDOW,
    provider,
    tokenCounter: quarterCounter,
    logger: silentLogger,
    summarizer: { summarize: () => Promise.resolve('The work so far.') },
  });
  const { actions } = await manager.prepare(history);
  return actions.some((action) => action.type === 'compact' || action.type === 'compact-skipped');
}

describe('compaction policy', () => {
  describe('one estimator for shouldCompact and the manager', () => {
    for (const provider of ['anthropic', 'openai', 'other'] as const) {
      it(`says compact exactly where the manager compacts (${provider})`, async () => {
        const answers: Array<[boolean, boolean]> = [];
        // from well under the trigger to over it, in steps smaller than the gap between the margins
        for (let turns = 1; turns <= 24; turns += 1) {
          const history = proseHistory(turns, 240);
          const predicted = shouldCompact(history, {
            contextTokenLimit: WINDOW,
            provider,
            tokenCounter: quarterCounter,
          });
          answers.push([predicted, await managerCompacts(history, provider)]);
        }
        expect(answers.map(([predicted]) => predicted)).toEqual(answers.map(([, compacted]) => compacted));
        // the sweep crosses the trigger: both answers occur
        expect(new Set(answers.map(([predicted]) => predicted)).size).toBe(2);
      });
    }
  });

  describe('the ratio outside the manager', () => {
    it("is the family's starting calibration, or the factor given", () => {
      expect(resolveEstimateRatio({})).toBe(1.5);
      expect(resolveEstimateRatio({ model: 'gpt-5' })).toBe(1);
      expect(resolveEstimateRatio({ provider: 'anthropic' })).toBe(1.5);
      expect(resolveEstimateRatio({ provider: 'anthropic', tokenSafetyFactor: 1.2 })).toBe(1.2);
    });
  });

  describe('room', () => {
    it('takes the system prompt and tools off the trigger, then targets half of what is left', () => {
      expect(
        computeCompactionRoom({ contextTokenLimit: 10_000, compactThresholdRatio: 0.9, fixedTokens: 1000 }),
      ).toEqual({
        triggerTokens: 9000,
        historyTriggerTokens: 8000,
        targetTokens: 4000,
        maxExchangeTokens: 6000,
      });
    });

    it('widens the target by what the exchange in flight takes beyond half of it', () => {
      expect(computeCompactionTarget(4000, 1000)).toBe(4000);
      expect(computeCompactionTarget(4000, 2500)).toBe(4500);
    });
  });

  describe('span', () => {
    it('summarizes what stands between the system messages and the exchange in flight', () => {
      const [call, result] = toolTurn('t1', 'output');
      expect(chooseCompactionSpan([SYSTEM, TASK, { role: 'assistant', content: 'ok' }, call, result])).toEqual({
        headLength: 1,
        exchangeStart: 3,
      });
    });

    it('has nothing to summarize when only the exchange follows the system messages', () => {
      expect(chooseCompactionSpan([SYSTEM, TASK])).toBeUndefined();
    });
  });
});
