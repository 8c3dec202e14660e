import { describe, expect, it } from 'vitest';
import {
  assembleMessages,
  formatRestoredFileMessage,
  parseRestoredFileMessage,
  RESTORED_FILE_ACKNOWLEDGEMENT,
  SUMMARY_ACKNOWLEDGEMENT,
} from '../../../../src/core/compact/assemble.js';
import type { Message } from '../../../../src/core/types.js';
import { createRecordingLogger, deepFreeze } from '../../../fixtures/compact-fixtures.js';

const system: Message = { role: 'system', content: 'You are an agent.' };

describe('assembleMessages', () => {
  it('builds Head + summary pair + one pair per restored file, texts verbatim', () => {
    const restored = [
      formatRestoredFileMessage('src/a.ts', 'export const a = 1;'),
      formatRestoredFileMessage('b.md', ''),
    ];
    expect(assembleMessages([system], '## Goals & Decisions\nFix the bug.', restored)).toMatchInlineSnapshot(`
      [
        {
          "content": "You are an agent.",
          "role": "system",
        },
        {
          "content": "[Conversation compressed]

      ## Goals & Decisions
      Fix the bug.",
          "role": "user",
        },
        {
          "content": "Understood. I have the context from the compressed conversation. Continuing work.",
          "role": "assistant",
        },
        {
          "content": "[Restored after compact] src/a.ts:
      export const a = 1;",
          "role": "user",
        },
        {
          "content": "Noted, file content restored.",
          "role": "assistant",
        },
        {
          "content": "[Restored after compact] b.md:
      ",
          "role": "user",
        },
        {
          "content": "Noted, file content restored.",
          "role": "assistant",
        },
      ]
    `);
  });

  it('uses the fixed wording of the summary message, its acknowledgement and the restored files', () => {
    const [summaryMessage, acknowledgement] = assembleMessages([], 'S', []);
    expect(summaryMessage).toEqual({ role: 'user', content: '[Conversation compressed]\n\nS' });
    expect(acknowledgement).toEqual({ role: 'assistant', content: SUMMARY_ACKNOWLEDGEMENT });
    expect(SUMMARY_ACKNOWLEDGEMENT).toBe(
      'Understood. I have the context from the compressed conversation. Continuing work.',
    );
    expect(RESTORED_FILE_ACKNOWLEDGEMENT).toBe('Noted, file content restored.');
    expect(formatRestoredFileMessage('p', 'c')).toEqual({ role: 'user', content: '[Restored after compact] p:\nc' });
  });

  it('puts the summary pair first when Head is empty', () => {
    const result = assembleMessages([], 'S', []);
    expect(result).toHaveLength(2);
    expect(result[0]?.role).toBe('user');
  });

  it('holds only Head + summary pair when nothing is restored', () => {
    expect(assembleMessages([system], 'S', [])).toHaveLength(3);
  });

  it('appends the resume message as a last user message when asked', () => {
    const result = assembleMessages([system], 'S', [], { resumeMessage: 'Continue with the task.' });
    expect(result.at(-1)).toEqual({ role: 'user', content: 'Continue with the task.' });
    expect(result).toHaveLength(4);
  });

  it('warns on a blank summary and still assembles', () => {
    const logger = createRecordingLogger();
    const result = assembleMessages([], '  ', [], { logger });
    expect(result).toHaveLength(2);
    expect(logger.warnings).toEqual(['assembleMessages: the summary is blank; assembling anyway']);
  });

  it('returns a new array and never changes its (deep-frozen) inputs', () => {
    const head = deepFreeze([system]);
    const restored = deepFreeze([formatRestoredFileMessage('a', 'b')]);
    const result = assembleMessages(head, 'S', restored);
    expect(result).not.toBe(head);
    expect(head).toHaveLength(1);
    expect(restored).toHaveLength(1);
  });
});

describe('parseRestoredFileMessage', () => {
  it('reads the path back from a restored file message', () => {
    expect(parseRestoredFileMessage(formatRestoredFileMessage('src/a b.ts', 'x:\ny'))).toBe('src/a b.ts');
    expect(parseRestoredFileMessage(formatRestoredFileMessage('C:\\w\\a.ts', ''))).toBe('C:\\w\\a.ts');
  });

  it('ignores other messages', () => {
    expect(parseRestoredFileMessage({ role: 'user', content: 'hello' })).toBeUndefined();
    expect(parseRestoredFileMessage({ role: 'assistant', content: '[Restored after compact] a:\nb' })).toBeUndefined();
    expect(parseRestoredFileMessage({ role: 'user', content: '[Restored after compact] no newline' })).toBeUndefined();
    expect(
      parseRestoredFileMessage({ role: 'user', content: [{ type: 'text', text: '[Restored after compact] a:\nb' }] }),
    ).toBeUndefined();
  });
});
