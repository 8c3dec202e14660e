import { describe, expect, it } from 'vitest';
import { buildFloorInput } from '../../../../bench/floor/transcript-floor.js';
import type { PeerTranscript } from '../../../../bench/peers/transcripts.js';
import { countTokens } from '../../../../src/api/tokens.js';
import { selectCostModel } from '../../../../src/core/cost/cost-model.js';
import type { Message } from '../../../../src/core/types.js';

const LOG = Array.from({ length: 200 }, (_, line) => `line ${line}: FAIL totals.test.ts expected 101 to be 102`).join(
  '\n',
);
const WINDOW = 2000;

const messages: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the totals test.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'run1', name: 'run_command', input: { command: 'npm test' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'run1', content: LOG }] },
  // more characters than half the window's: the manager lets it age like a result
  { role: 'assistant', content: [{ type: 'text', text: LOG }] },
  { role: 'user', content: 'Go on.' },
  // a written file's content: a tool input field the manager offloads with its batches
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'write1', name: 'write_file', input: { path: 'totals.ts', content: LOG } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'write1', content: 'written' }] },
  { role: 'assistant', content: 'Done.' },
];
const transcript: PeerTranscript = { name: 'test', messages, toolDefinitionTokens: 7 };

describe('buildFloorInput', () => {
  const input = buildFloorInput(transcript, WINDOW, selectCostModel({ provider: 'anthropic' }));

  it('counts each message as the bench does, and the requests as the assistant messages', () => {
    expect(input.messageTokens).toEqual(messages.map((message) => countTokens([message])));
    expect(input.turnEnds).toEqual([2, 4, 6, 8]);
    expect([input.systemEnd, input.fixedTokens, input.window]).toEqual([1, 7, WINDOW]);
  });

  it('lets a tool result, assistant text over the inline limit and a large input field go, each for less than it takes', () => {
    const offloadable = input.offloadSavings.flatMap((saving, index) => (saving > 0 ? [index] : []));
    expect(offloadable).toEqual([3, 4, 6]);
    for (const index of offloadable) expect(input.offloadSavings[index]).toBeLessThan(input.messageTokens[index]!);
  });

  it('takes the cache prices from the cost model', () => {
    expect([input.readRatio, input.writeRatio]).toEqual([0.1, 1.25]);
  });
});
