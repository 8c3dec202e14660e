/**
 * Values a format writes as JSON text (an AI SDK tool's `json` output, a tool call's input in the
 * OpenAI formats): what JSON cannot hold is `INVALID_MESSAGE` with the path, like any other field.
 */
import { describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import { InvalidMessageError } from '../../../src/core/errors.js';
import type { Message } from '../../../src/core/types.js';
import { formats } from '../../../src/formats/index.js';

function buildCycle(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: 'a' };
  value.self = value;
  return value;
}

function buildNesting(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let current = root;
  for (let level = 0; level < depth; level += 1) {
    const next: Record<string, unknown> = {};
    current.x = next;
    current = next;
  }
  return root;
}

const UNWRITABLE: ReadonlyArray<[string, () => unknown, RegExp]> = [
  ['a BigInt', () => ({ count: 10n }), /\.count: a BigInt, which JSON cannot hold/],
  ['a cycle', buildCycle, /\.self: a cycle: the value contains itself$/],
  [
    '5,000 levels of nesting',
    () => buildNesting(5000),
    /\(\d+ levels\).*: nested deeper than 1000 levels of objects and arrays$/,
  ],
];

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('an AI SDK json tool output JSON cannot hold', () => {
  describe.each(['json', 'error-json'])('of type %s', (type) => {
    it.each(UNWRITABLE)('%s is INVALID_MESSAGE with its path', (_label, build, reason) => {
      const history = [
        { role: 'user', content: 'go' },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type, value: build() } }],
        },
      ];
      const error = catchError(() => formats.aiSdk.toCanonical(history as never));
      expect(error).toBeInstanceOf(InvalidMessageError);
      expect((error as Error).message).toMatch(/^messages\[1\]\.content\[0\]\.output\.value/);
      expect((error as Error).message).toMatch(reason);
    });
  });

  it('is INVALID_MESSAGE from the context manager too, before anything is written', async () => {
    const history = [
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'json', value: { n: 1n } } }],
      },
    ];
    const manager = createContextManager({ format: 'ai-sdk', outputDir: '/nonexistent/never-written' });
    await expect(manager.prepare(history as never)).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
      message: expect.stringMatching(/^messages\[0\]\.content\[0\]\.output\.value\.n: a BigInt/),
    });
  });
});

describe('a tool call input JSON cannot hold, written back as arguments text', () => {
  const formatsWithArguments: ReadonlyArray<[string, { fromCanonical(canonical: readonly Message[]): unknown[] }]> = [
    ['openaiChat', formats.openaiChat],
    ['openaiResponses', formats.openaiResponses],
    ['openaiAgents', formats.openaiAgents],
  ];

  describe.each(formatsWithArguments)('%s.fromCanonical', (_name, format) => {
    it.each(UNWRITABLE)('%s is INVALID_MESSAGE with its path', (_label, build, reason) => {
      const canonical: Message[] = [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'calling' },
            { type: 'tool_use', id: 'c1', name: 'f', input: build() as Record<string, unknown> },
          ],
        },
      ];
      const error = catchError(() => format.fromCanonical(canonical));
      expect(error).toBeInstanceOf(InvalidMessageError);
      expect((error as Error).message).toMatch(/^messages\[1\]\.content\[1\]\.input/);
      expect((error as Error).message).toMatch(reason);
    });
  });
});
