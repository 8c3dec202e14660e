/**
 * The gemini format: Gemini API contents to the canonical shape and back. Calls without ids are
 * paired with their responses by position; every part the canonical model has no place for
 * travels untouched; offload and compaction give back contents the API takes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import { offloadToolResults } from '../../../src/api/offload.js';
import { createExtractiveSummarizer } from '../../../src/core/compact/summary/extractive-summarizer.js';
import { InvalidMessageError } from '../../../src/core/errors.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../../../src/core/types.js';
import { gemini, type GeminiContent } from '../../../src/formats/gemini.js';
import { geminiHistory, LARGE_OUTPUT } from './sdk-samples.js';

let outputDir: string;

beforeEach(async () => {
  outputDir = await mkdtemp(join(tmpdir(), 'aco-gemini-'));
});

afterEach(async () => {
  await rm(outputDir, { recursive: true, force: true });
});

function toolUses(canonical: readonly Message[]): ToolUseBlock[] {
  return canonical.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use'),
  );
}

function toolResults(canonical: readonly Message[]): ToolResultBlock[] {
  return canonical.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'),
  );
}

describe('gemini toCanonical', () => {
  it('reads model contents as assistant messages and user contents as user messages, one block per part', () => {
    const canonical = gemini.toCanonical(geminiHistory);
    expect(canonical.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    geminiHistory.forEach((content, index) => expect(canonical[index]!.content).toHaveLength(content.parts!.length));
    expect(canonical[3]!.content).toEqual([
      { type: 'gemini:executableCode', part: geminiHistory[3]!.parts![0] },
      { type: 'gemini:codeExecutionResult', part: geminiHistory[3]!.parts![1] },
      { type: 'text', text: 'a.txt is long; b.txt is missing.' },
    ]);
  });

  it('pairs responses with the calls of the content before them by name and order, whatever ids the responses carry', () => {
    const canonical = gemini.toCanonical(geminiHistory);
    const uses = toolUses(canonical);
    const results = toolResults(canonical);
    const callOf = (result: ToolResultBlock) => uses.find((use) => use.id === result.tool_use_id);
    expect(results.map((result) => [callOf(result)?.name, callOf(result)?.input])).toEqual([
      ['list_directory', { path: '.' }],
      ['read_file', { path: 'a.txt' }],
      ['read_file', { path: 'b.txt' }],
    ]);
    expect(new Set(uses.map((use) => use.id)).size).toBe(uses.length);
  });

  it('gives the same ids when the history is converted again from new objects', () => {
    const first = toolUses(gemini.toCanonical(geminiHistory)).map((use) => use.id);
    const again = toolUses(gemini.toCanonical(structuredClone(geminiHistory))).map((use) => use.id);
    expect(again).toEqual(first);
  });

  it('reads a response of one string field as its text, an error field as an error, any other response as JSON text', () => {
    const results = toolResults(gemini.toCanonical(geminiHistory));
    expect(results.map((result) => [result.content, result.is_error === true])).toEqual([
      ['{"files":["a.txt"],"total":1}', false],
      [LARGE_OUTPUT, false],
      ['ENOENT: b.txt', true],
    ]);
  });

  it('reads a thought as a thinking block and keeps its signature', () => {
    const [thought] = gemini.toCanonical(geminiHistory)[1]!.content as unknown as Array<Record<string, unknown>>;
    expect(thought).toMatchObject({ type: 'thinking', thinking: 'Two reads.' });
  });
});

describe('gemini round trips', () => {
  it('gives back the same bytes with the original', () => {
    const back = gemini.fromCanonical(gemini.toCanonical(geminiHistory), geminiHistory);
    expect(JSON.stringify(back)).toBe(JSON.stringify(geminiHistory));
  });

  it('gives back the same bytes when every content is built fresh from a copy of the canonical history', () => {
    const canonical = structuredClone(gemini.toCanonical(geminiHistory));
    expect(JSON.stringify(gemini.fromCanonical(canonical))).toBe(JSON.stringify(geminiHistory));
  });

  it('never writes a derived id into a call or a response that came without one', () => {
    const history: GeminiContent[] = [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'run', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'run', response: { output: 'ok' } } }] },
    ];
    const fresh = gemini.fromCanonical(structuredClone(gemini.toCanonical(history)));
    expect(fresh).toEqual(history);
  });
});

describe('gemini with offload', () => {
  it('offloads a large function response: the reference in its output, its id and name kept, the rest untouched', async () => {
    const canonical = gemini.toCanonical(geminiHistory);
    const result = await offloadToolResults(canonical, { outputDir, charThreshold: 1_000, ratioThreshold: 0 });
    expect(result.offloadedCount).toBe(1);
    const back = gemini.fromCanonical(result.messages, geminiHistory);
    back.forEach((content, index) => {
      if (index !== 2) expect(content).toBe(geminiHistory[index]);
    });
    const [, offloaded, error] = back[2]!.parts!;
    expect(offloaded!.functionResponse).toEqual({
      id: 'read_file-1-b',
      name: 'read_file',
      response: {
        output: expect.stringMatching(/^\[Content offloaded to: \.\/tool-result-gemini_1_0_read_file\.md\]$/),
      },
    });
    expect(error).toBe(geminiHistory[2]!.parts![2]);
    expect(await readFile(join(outputDir, 'tool-result-gemini_1_0_read_file.md'), 'utf8')).toBe(LARGE_OUTPUT);
  });

  it('converts the offloaded contents back to the very canonical messages offload made', async () => {
    const canonical = gemini.toCanonical(geminiHistory);
    const result = await offloadToolResults(canonical, { outputDir, charThreshold: 1_000, ratioThreshold: 0 });
    const back = gemini.fromCanonical(result.messages, geminiHistory);
    expect(gemini.toCanonical(back)).toEqual(result.messages);
  });
});

describe('gemini with the context manager', () => {
  function session(turns: number): GeminiContent[] {
    const contents: GeminiContent[] = [{ role: 'user', parts: [{ text: 'Look through the logs.' }] }];
    for (let turn = 0; turn < turns; turn += 1) {
      contents.push({
        role: 'model',
        parts: [
          { text: `Reading log ${turn}. ${'careful reasoning '.repeat(150)}` },
          { functionCall: { name: 'run_shell_command', args: { command: `cat log-${turn}.txt` } } },
        ],
      });
      contents.push({
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: `run_shell_command-${turn}`,
              name: 'run_shell_command',
              response: { output: `log ${turn}\n${'entry ok\n'.repeat(200)}` },
            },
          },
        ],
      });
    }
    return contents;
  }

  it('compacts a long session into contents the API takes: user and model turns, each response after its call', async () => {
    const manager = createContextManager<GeminiContent>({
      format: 'gemini',
      outputDir,
      contextTokenLimit: 8_000,
      summarizer: createExtractiveSummarizer(),
      logger: { warn: () => undefined },
    });
    const history = session(12);
    const result = await manager.prepare(history);
    expect(result.actions.some((action) => action.type === 'compact')).toBe(true);
    expect(result.messages.length).toBeLessThan(history.length);
    for (const content of result.messages) expect(['user', 'model']).toContain(content.role);
    // every response answers a call of the content just before it, with the same name
    result.messages.forEach((content, index) => {
      for (const part of content.parts ?? []) {
        if (part.functionResponse === undefined) continue;
        const previous = result.messages[index - 1];
        expect(previous?.role).toBe('model');
        expect(previous?.parts?.some((call) => call.functionCall?.name === part.functionResponse?.name)).toBe(true);
      }
    });
    const ids = result.messages.flatMap((content) =>
      (content.parts ?? []).map((part) => part.functionCall?.id ?? part.functionResponse?.id),
    );
    expect(ids.filter((id) => id?.startsWith('gemini_'))).toEqual([]);
  });
});

describe('gemini with large call inputs', () => {
  it("offloads an older call's large argument into its args, the part's signature and the response's id kept", async () => {
    const write = (turn: number, content: string): GeminiContent[] => [
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'write_file', args: { file_path: `m${turn}.ts`, content } },
            thoughtSignature: `s${turn}`,
          },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: `w-${turn}`, name: 'write_file', response: { output: 'Wrote it.' } } }],
      },
    ];
    const history: GeminiContent[] = [
      { role: 'user', parts: [{ text: 'Write the modules.' }] },
      ...write(1, 'export const first = 1;\n'.repeat(150)),
      ...write(2, 'export const second = 2;\n'.repeat(120)),
      ...write(3, 'export {};\n'),
    ];
    // older inputs inline up to 4,000 characters; no prompt cache, so the batch goes as the budget passes
    const manager = createContextManager<GeminiContent>({
      format: 'gemini',
      outputDir,
      contextTokenLimit: 10_000,
      offload: { agedBudgetChars: 4000 },
      cost: { family: 'none' },
    });
    const result = await manager.prepare(history);

    expect(result.actions.map((action) => action.type)).toEqual(['input-offload']);
    const [call] = result.messages[1]!.parts!;
    expect(call).toEqual({
      functionCall: {
        name: 'write_file',
        args: {
          file_path: 'm1.ts',
          content: expect.stringMatching(
            /^\[Content offloaded to: .*tool-input-gemini_1_0_write_file-[0-9a-f]{16}\.md\]$/,
          ),
        },
      },
      thoughtSignature: 's1',
    });
    expect(result.messages[2]).toBe(history[2]);
    expect(result.messages[6]).toBe(history[6]);
  });
});

describe('gemini refuses what is not a content', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a string', 'hi', /^messages\[0\]: must be a Gemini content object, got/],
    [
      'an unknown role',
      { role: 'assistant', parts: [] },
      /^messages\[0\]\.role: must be "user" or "model", got "assistant"/,
    ],
    ['parts that are not an array', { role: 'user', parts: 'hi' }, /^messages\[0\]\.parts: must be an array of parts/],
    [
      'a part that is not an object',
      { role: 'user', parts: [null] },
      /^messages\[0\]\.parts\[0\]: must be a part object/,
    ],
    [
      'a call without a name',
      { role: 'model', parts: [{ functionCall: { args: {} } }] },
      /^messages\[0\]\.parts\[0\]\.functionCall\.name: must be a string, got undefined/,
    ],
    [
      'call arguments that are not an object',
      { role: 'model', parts: [{ functionCall: { name: 'f', args: [1] } }] },
      /^messages\[0\]\.parts\[0\]\.functionCall\.args: must be an object/,
    ],
    [
      'a response that is not an object',
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: 'done' } }] },
      /^messages\[0\]\.parts\[0\]\.functionResponse\.response: must be an object, got "done"/,
    ],
  ];
  for (const [what, content, message] of cases) {
    it(`refuses ${what}, naming the field`, () => {
      expect(() => gemini.toCanonical([content as GeminiContent])).toThrow(InvalidMessageError);
      expect(() => gemini.toCanonical([content as GeminiContent])).toThrow(message);
    });
  }

  it('never changes the contents it reads', () => {
    const before = JSON.stringify(geminiHistory);
    gemini.fromCanonical(gemini.toCanonical(geminiHistory), geminiHistory);
    expect(JSON.stringify(geminiHistory)).toBe(before);
  });
});
