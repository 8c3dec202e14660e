import { describe, expect, it } from 'vitest';
import { createLocalCounts } from '../../../../../src/core/manage/counting/history-estimate.js';
import type { TokenCounter } from '../../../../../src/core/ports.js';
import type { Message } from '../../../../../src/core/types.js';
import { sha256Hashing } from '../../../../../src/infrastructure/sha256-hashing.js';

/** One token per character, remembering the texts it was asked to count. */
function createRecordingCounter(): TokenCounter & { texts: string[] } {
  const texts: string[] = [];
  return { texts, count: (text) => (texts.push(text), text.length) };
}

function resultMessage(text: string, marked: boolean): Message {
  return {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: text,
        ...(marked ? { cache_control: { type: 'ephemeral' as const } } : {}),
      },
    ],
  };
}

describe('local counts: by content', () => {
  it('counts a message once when it comes back as a new object with its prompt-cache marker moved off', () => {
    const counter = createRecordingCounter();
    const counts = createLocalCounts(counter, true, sha256Hashing);
    const first = counts.of(resultMessage('the output of the test run', true));
    const again = counts.of(resultMessage('the output of the test run', false));

    expect(again).toBe(first);
    expect(counter.texts).toEqual(['the output of the test run']);
  });

  it('counts a message again when its content changed', () => {
    const counter = createRecordingCounter();
    const counts = createLocalCounts(counter, true, sha256Hashing);
    const first = counts.of(resultMessage('the output of the test run', false));
    const changed = counts.of(resultMessage('the output of the test run, longer', false));

    expect(changed).toBeGreaterThan(first);
    expect(counter.texts).toEqual(['the output of the test run', 'the output of the test run, longer']);
  });

  it('counts a message again when a field named cache_control inside a tool call input changed (it is the tool s data)', () => {
    const counter = createRecordingCounter();
    const counts = createLocalCounts(counter, true, sha256Hashing);
    const call = (value: string): Message => ({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'set', input: { cache_control: value } }],
    });
    counts.of(call('a'));
    counts.of(call('bbbb'));

    expect(counter.texts).toEqual(['set', '{"cache_control":"a"}', 'set', '{"cache_control":"bbbb"}']);
  });

  it('counts a marker moved inside a tool result s blocks once', () => {
    const counter = createRecordingCounter();
    const counts = createLocalCounts(counter, true, sha256Hashing);
    const nested = (marked: boolean): Message => ({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [
            {
              type: 'text',
              text: 'nested output',
              ...(marked ? { cache_control: { type: 'ephemeral' as const } } : {}),
            },
          ],
        },
      ],
    });
    counts.of(nested(true));
    counts.of(nested(false));

    expect(counter.texts).toEqual(['nested output']);
  });
});
