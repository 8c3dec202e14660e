import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passesRatioGate, summarizeMessageChars } from '../../../../../src/core/manage/offload/ratio-gate.js';
import { resolvePlanOptions } from '../../../../../src/core/options/offload-options.js';
import { createOffloadPlan } from '../../../../../src/core/offload/plan-offload.js';
import { recordToolNames } from '../../../../../src/core/messages/tool-names.js';
import type { ContentBlock, Message } from '../../../../../src/core/types.js';

const toolNames = ['bash', 'read_file', 'read_offloaded', 'grep'];

/** Histories of tool rounds, text turns and references, with ids that may repeat. */
const historyArbitrary: fc.Arbitrary<Message[]> = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('text' as const), length: fc.integer({ min: 0, max: 400 }) }),
      fc.record({
        kind: fc.constant('tool' as const),
        id: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
        tool: fc.constantFrom(...toolNames),
        length: fc.integer({ min: 0, max: 600 }),
        reference: fc.boolean(),
        asBlocks: fc.boolean(),
      }),
    ),
    { maxLength: 14 },
  )
  .map((turns) =>
    turns.flatMap((turn): Message[] => {
      if (turn.kind === 'text') return [{ role: 'user', content: 'w'.repeat(turn.length) }];
      const body = turn.reference ? `[Content offloaded to: ./tool-result-${turn.id}.md]` : 'r'.repeat(turn.length);
      const content: string | ContentBlock[] = turn.asBlocks ? [{ type: 'text', text: body }] : body;
      return [
        { role: 'assistant', content: [{ type: 'tool_use', id: turn.id, name: turn.tool, input: { n: turn.length } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: turn.id, content }] },
      ];
    }),
  );

describe('the incremental ratio gate', () => {
  it('agrees with the batch offload plan on every history, threshold and keepRecent', () => {
    fc.assert(
      fc.property(
        historyArbitrary,
        fc.integer({ min: 1, max: 300 }),
        fc.constantFrom(0, 0.05, 0.2, 0.5, 1),
        fc.integer({ min: 0, max: 3 }),
        fc.subarray(toolNames),
        (messages, charThreshold, ratioThreshold, keepRecent, excludeTools) => {
          const options = resolvePlanOptions({ charThreshold, ratioThreshold, keepRecent, excludeTools }, {});
          // as the manager does: each message summarized when first seen, with the calls seen so far
          const names = new Map<string, string>();
          const summaries = messages.map((message) => {
            recordToolNames(message, names);
            return summarizeMessageChars(message, names, options);
          });
          const plan = createOffloadPlan(messages, options);
          expect(passesRatioGate(summaries, options)).toBe(plan.skippedReason === null);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('counts a message of string content by its length, with no results', () => {
    const options = resolvePlanOptions({}, {});
    expect(summarizeMessageChars({ role: 'user', content: 'hello' }, new Map(), options)).toEqual({
      totalChars: 5,
      results: [],
    });
  });

  it('does not take a result of an excluded tool, nor one that already is a reference', () => {
    const options = resolvePlanOptions({ charThreshold: 10, excludeTools: ['grep'] }, {});
    const message: Message = {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'g', content: 'x'.repeat(50) },
        { type: 'tool_result', tool_use_id: 'r', content: '[Content offloaded to: ./tool-result-r.md]' },
        { type: 'tool_result', tool_use_id: 'b', content: 'y'.repeat(50) },
      ],
    };
    const summary = summarizeMessageChars(
      message,
      new Map([
        ['g', 'grep'],
        ['b', 'bash'],
      ]),
      options,
    );
    expect(summary.results.map((result) => result.offloadable)).toEqual([false, false, true]);
  });
});
