import { describe, expect, it } from 'vitest';
import { countLeadingSystemMessages, findRequestTurns, sliceTurn } from '../../../../src/cli/replay/request-turns.js';
import type { Message } from '../../../../src/index.js';

const transcript: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the test.' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'src/a.ts' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'export const a = 1;' }] },
  { role: 'assistant', content: 'Done.' },
  { role: 'user', content: 'Thanks.' },
];

describe('replay: one model request per assistant message', () => {
  it('finds the assistant messages: request k sent everything before the k-th', () => {
    expect(findRequestTurns(transcript)).toEqual([2, 4]);
  });

  it('finds none in a transcript without an assistant message', () => {
    expect(findRequestTurns(transcript.filter((message) => message.role !== 'assistant'))).toEqual([]);
  });

  it('appends after request k its answer and everything up to the next request', () => {
    const turns = findRequestTurns(transcript);
    expect(sliceTurn(transcript, turns, 0)).toEqual(transcript.slice(2, 4));
    // after the last request, the rest of the transcript
    expect(sliceTurn(transcript, turns, 1)).toEqual(transcript.slice(4));
    expect(sliceTurn(transcript, turns, 2)).toEqual([]);
  });

  it('counts the leading system messages only', () => {
    expect(countLeadingSystemMessages(transcript)).toBe(1);
    expect(countLeadingSystemMessages([...transcript, { role: 'system', content: 'late' }])).toBe(1);
    expect(countLeadingSystemMessages([])).toBe(0);
  });
});
