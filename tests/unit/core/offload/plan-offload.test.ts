import { afterEach, describe, expect, it, vi } from 'vitest';
import { planOffload } from '../../../../src/api/offload.js';
import { planOffload as planOffloadPure } from '../../../../src/core/offload/plan-offload.js';
import { buildDirectReference, buildPreview } from '../../../../src/core/offload/offload-reference.js';
import type { Message } from '../../../../src/core/types.js';
import {
  assistantMessage,
  deepFreeze,
  text,
  toolResult,
  toolUse,
  userMessage,
} from '../../../fixtures/offload-fixtures.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('planOffload — counts', () => {
  it('counts text, thinking (not its signature), tool inputs and array results as JSON; an image counts 0', () => {
    const messages: Message[] = [
      { role: 'system', content: text(10) },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: text(7), signature: 'long-signature-not-counted' },
          { type: 'text', text: text(5) },
          toolUse('t1', 'read_file', { path: 'a' }),
          { type: 'image', source: { type: 'base64', data: text(999) } },
        ],
      },
      userMessage(toolResult('t1', text(300)), toolResult('t2', [{ type: 'text', text: 'hi' }])),
    ];
    const plan = planOffloadPure(messages);
    const inputChars = JSON.stringify({ path: 'a' }).length;
    const arrayChars = JSON.stringify([{ type: 'text', text: 'hi' }]).length;
    expect(plan.totalChars).toBe(10 + 7 + 5 + inputChars + 0 + 300 + arrayChars);
    expect(plan.offloadableChars).toBe(300);
    expect(plan.ratio).toBe(300 / plan.totalChars);
  });

  it('lists the candidates with their place, tool name, size and planned file name', () => {
    const messages = [
      assistantMessage(toolUse('a', 'grep'), toolUse('b', 'bash')),
      userMessage(toolResult('a', text(150)), toolResult('b', 'small'), toolResult('a', text(120))),
      userMessage(toolResult('orphan', text(100))),
    ];
    expect(planOffloadPure(messages).candidates).toEqual([
      {
        messageIndex: 1,
        blockIndex: 0,
        toolUseId: 'a',
        toolName: 'grep',
        chars: 150,
        fileStem: 'a',
        fileName: 'tool-result-a.md',
      },
      {
        messageIndex: 1,
        blockIndex: 2,
        toolUseId: 'a',
        toolName: 'grep',
        chars: 120,
        fileStem: 'a',
        fileName: 'tool-result-a-1.md',
      },
      {
        messageIndex: 2,
        blockIndex: 0,
        toolUseId: 'orphan',
        toolName: null,
        chars: 100,
        fileStem: 'orphan',
        fileName: 'tool-result-orphan.md',
      },
    ]);
  });

  it('writes nothing, does not mutate, and plans a safe name for an unsafe id it would offload', () => {
    const messages = deepFreeze([userMessage(toolResult('../x', text(200)))]);
    const plan = planOffloadPure(messages);
    expect(plan.candidates[0]!.fileName).toMatch(/^tool-result-x~[0-9a-z]{11}\.md$/);
    expect(plan.skippedReason).toBeNull();
  });

  it("plans a duplicate id's suffix around every other id of the history: a, a, a-1 get three names", () => {
    const messages = [
      userMessage(toolResult('a', text(150)), toolResult('a', text(151)), toolResult('a-1', text(152))),
    ];
    expect(planOffloadPure(messages).candidates.map((candidate) => candidate.fileName)).toEqual([
      'tool-result-a.md',
      'tool-result-a-2.md',
      'tool-result-a-1.md',
    ]);
  });

  it('keeps the name of an id it does not offload free for it', () => {
    const messages = [userMessage(toolResult('a', text(150)), toolResult('a', text(151)), toolResult('a-1', 'small'))];
    expect(planOffloadPure(messages).candidates.map((candidate) => candidate.fileName)).toEqual([
      'tool-result-a.md',
      'tool-result-a-2.md',
    ]);
  });
});

describe('planOffload — skip reasons in order', () => {
  it("an empty history: 'no-content'", () => {
    expect(planOffloadPure([]).skippedReason).toBe('no-content');
  });

  it("a history of blocks that count 0 only: 'no-content'", () => {
    const messages: Message[] = [{ role: 'user', content: [{ type: 'image', source: {} }] }];
    expect(planOffloadPure(messages, { ratioThreshold: 0 }).skippedReason).toBe('no-content');
  });

  it("nothing qualifies: 'nothing-to-offload' (even at charThreshold 1 and ratio 0)", () => {
    const messages = [userMessage(toolResult('a', '')), { role: 'user' as const, content: 'hello' }];
    expect(planOffloadPure(messages, { charThreshold: 1, ratioThreshold: 0 })).toMatchObject({
      totalChars: 5,
      offloadableChars: 0,
      ratio: 0,
      skippedReason: 'nothing-to-offload',
    });
  });

  it("below the ratio: 'below-ratio-threshold', with the candidates still listed", () => {
    const messages = [{ role: 'user' as const, content: text(801) }, userMessage(toolResult('r', text(199)))];
    const plan = planOffloadPure(messages);
    expect(plan).toMatchObject({
      totalChars: 1000,
      offloadableChars: 199,
      ratio: 0.199,
      skippedReason: 'below-ratio-threshold',
    });
    expect(plan.candidates).toHaveLength(1);
  });

  it('at the ratio exactly: no skip', () => {
    const messages = [{ role: 'user' as const, content: text(800) }, userMessage(toolResult('r', text(200)))];
    expect(planOffloadPure(messages)).toMatchObject({ ratio: 0.2, skippedReason: null });
  });
});

describe('planOffload — options', () => {
  it('leaves out existing references, excluded tools and the keepRecent newest', () => {
    const messages = [
      assistantMessage(toolUse('x', 'read_file')),
      userMessage(
        toolResult(
          'ref',
          buildDirectReference('/a/b.md') + buildPreview(text(300), { headChars: 100, tailChars: 100 }),
        ),
        toolResult('x', text(300)),
        toolResult('old', text(300)),
        toolResult('newest', text(300)),
      ),
    ];
    const plan = planOffloadPure(messages, { excludeTools: ['read_file'], keepRecent: 1 });
    expect(plan.candidates.map((candidate) => candidate.toolUseId)).toEqual(['old']);
    expect(plan.offloadableChars).toBe(300);
  });

  it('reports the thresholds in force', () => {
    expect(planOffloadPure([], { charThreshold: 7, ratioThreshold: 0.5 })).toMatchObject({
      charThreshold: 7,
      ratioThreshold: 0.5,
    });
    expect(planOffloadPure([])).toMatchObject({ charThreshold: 100, ratioThreshold: 0.2 });
  });

  it('takes the environment it is given (pure), and the public planOffload reads process.env at call time', () => {
    expect(planOffloadPure([], {}, { OFFLOAD_CHAR_THRESHOLD: '42' }).charThreshold).toBe(42);
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '55');
    vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', '0.7');
    expect(planOffload([])).toMatchObject({ charThreshold: 55, ratioThreshold: 0.7 });
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '56');
    expect(planOffload([]).charThreshold).toBe(56);
  });

  it('rejects invalid options and malformed messages', () => {
    expect(() => planOffloadPure([], { ratioThreshold: 2 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION' }),
    );
    expect(() => planOffloadPure([], {}, { OFFLOAD_RATIO_THRESHOLD: 'x' })).toThrow(/OFFLOAD_RATIO_THRESHOLD/);
    expect(() => planOffloadPure([{ role: 'robot', content: '' }] as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_MESSAGE', path: 'messages[0].role' }),
    );
  });
});
