/**
 * Reading and writing transcripts in every message format (src/formats/transcripts/, the pure
 * part of the CLI's input): shapes, system prompts, detection, and errors that name the field.
 */
import { describe, expect, it } from 'vitest';
import { formats } from '../../../../src/formats/index.js';
import { isClaudeCodeLogLine } from '../../../../src/formats/transcripts/claude-code-log.js';
import { matchLangchainJsonForm } from '../../../../src/formats/transcripts/langchain-json.js';
import { readTranscriptDocument, readTranscriptLines } from '../../../../src/formats/transcripts/read-transcript.js';
import { TranscriptError } from '../../../../src/formats/transcripts/transcript.js';
import { writeTranscript } from '../../../../src/formats/transcripts/write-transcript.js';
import type { Message } from '../../../../src/core/types.js';

function readError(read: () => unknown): TranscriptError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(TranscriptError);
    return error as TranscriptError;
  }
  throw new Error('expected a TranscriptError');
}

const FUNCTION_CALL = { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' };
const FUNCTION_OUTPUT = { type: 'function_call_output', call_id: 'c1', output: 'export const a = 1;' };

describe('OpenAI Responses request bodies', () => {
  it('reads instructions as the leading system message and input as the history', () => {
    const transcript = readTranscriptDocument({
      model: 'gpt-4.1',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: 'hi' }, FUNCTION_CALL, FUNCTION_OUTPUT],
    });
    expect(transcript).toMatchObject({ shape: 'request-body', format: { name: 'openai-responses' } });
    expect(transcript.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(transcript.messages).toHaveLength(4);
  });

  it('reads a string input as one user message, and writes it back as that string when unchanged', () => {
    const body = { model: 'gpt-4.1', input: 'Summarize the repository.' };
    const transcript = readTranscriptDocument(body);
    expect(transcript.messages).toEqual([{ role: 'user', content: 'Summarize the repository.' }]);
    expect(writeTranscript(transcript, transcript.messages)).toEqual(body);
  });

  it('writes a changed string input back as items', () => {
    const transcript = readTranscriptDocument({ model: 'gpt-4.1', input: 'a' });
    const written = writeTranscript(transcript, [...transcript.messages, { role: 'assistant', content: 'b' }]) as {
      input: unknown;
    };
    expect(Array.isArray(written.input)).toBe(true);
  });

  it('names the input field, not messages, of a bad item', () => {
    const error = readError(() =>
      readTranscriptDocument({ input: [FUNCTION_CALL, { type: 'function_call_output', call_id: 'c1', output: 42 }] }),
    );
    expect(error.message).toMatch(/^not an openai-responses message: input\[1\]\.output: /);
  });

  it('refuses an input that is neither items nor a string', () => {
    expect(readError(() => readTranscriptDocument({ input: 42 })).message).toBe(
      'request body: "input" must be an array of items or a string',
    );
  });
});

describe('Gemini request bodies', () => {
  const body = {
    systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Use tools.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: 'a.ts' } } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'read_file', response: { output: 'export const a = 1;' } } }],
      },
    ],
    tools: [{ functionDeclarations: [{ name: 'read_file' }] }],
    generationConfig: { temperature: 0 },
  };

  it('reads systemInstruction as the leading system message and contents as the history', () => {
    const transcript = readTranscriptDocument(body);
    expect(transcript).toMatchObject({ shape: 'request-body', format: { name: 'gemini' } });
    expect(transcript.messages[0]).toEqual({ role: 'system', content: 'Be brief.\nUse tools.' });
    expect(transcript.messages).toHaveLength(4);
    expect(transcript.toolDefinitions).toBe(body.tools);
  });

  it('writes the body back as it was when nothing changed, and a new system prompt as a content', () => {
    const transcript = readTranscriptDocument(body);
    expect(writeTranscript(transcript, transcript.messages)).toEqual(body);
    const changed = [{ role: 'system' as const, content: 'Be terse.' }, ...transcript.messages.slice(1)];
    expect(writeTranscript(transcript, changed)).toEqual({
      ...body,
      systemInstruction: { parts: [{ text: 'Be terse.' }] },
    });
  });

  it('refuses a systemInstruction that is not text parts, naming the field', () => {
    expect(() => readTranscriptDocument({ ...body, systemInstruction: { parts: [{ inlineData: {} }] } })).toThrow(
      'request body: "systemInstruction.parts[0]" must be a text part',
    );
  });
});

describe('AI SDK request bodies', () => {
  const history = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];

  it('reads system as a string, a system message, or system messages, and writes each back as it was', () => {
    for (const system of [
      'Be brief.',
      { role: 'system', content: 'Be brief.' },
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Use tools.' },
      ],
    ]) {
      const body = { system, messages: history };
      const transcript = readTranscriptDocument(body, { format: formats.aiSdk });
      expect(transcript.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
      expect(writeTranscript(transcript, transcript.messages)).toEqual(body);
    }
  });

  it('refuses a system that is neither text nor system messages', () => {
    expect(
      readError(() => readTranscriptDocument({ system: [1], messages: [{ role: 'tool', content: [] }] })).message,
    ).toBe('request body: "system" must be a string or system messages');
  });
});

describe('request bodies: the system prompt on writing', () => {
  it('writes every field back, in order, with the history converted back to the format', () => {
    const body = {
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
      ],
      temperature: 0,
    };
    const transcript = readTranscriptDocument(body);
    expect(transcript.format.name).toBe('openai-chat');
    const written = writeTranscript(transcript, transcript.messages) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(['model', 'messages', 'temperature']);
    expect(written).toEqual(body);
  });

  it('drops the system field when the history no longer starts with a system message', () => {
    const transcript = readTranscriptDocument({ system: 'S', messages: [{ role: 'user', content: 'a' }] });
    const written = writeTranscript(transcript, [{ role: 'user', content: 'b' }] as Message[]);
    expect(written).toEqual({ messages: [{ role: 'user', content: 'b' }] });
  });
});

describe('JSONL of items', () => {
  it('reads Responses items one per line, even when the first is a function call (not a Claude Code line)', () => {
    expect(isClaudeCodeLogLine(FUNCTION_CALL)).toBe(false);
    const transcript = readTranscriptLines([
      { value: FUNCTION_CALL, line: 1 },
      { value: FUNCTION_OUTPUT, line: 2 },
    ]);
    expect(transcript).toMatchObject({ shape: 'jsonl', format: { name: 'openai-responses' } });
  });

  it('still reads a Claude Code line by its type or its own fields', () => {
    expect(isClaudeCodeLogLine({ type: 'summary', summary: 's', leafUuid: 'u' })).toBe(true);
    expect(isClaudeCodeLogLine({ type: 'some-future-line', sessionId: 's' })).toBe(true);
  });

  it('names the line of a bad item', () => {
    const error = readError(() =>
      readTranscriptLines([
        { value: FUNCTION_CALL, line: 3 },
        { value: { ...FUNCTION_OUTPUT, output: 42 }, line: 5 },
      ]),
    );
    expect(error.line).toBe(5);
    expect(error.message).toMatch(/^not an openai-responses message: messages\[1\]\.output: /);
  });

  it('refuses a Claude Code log forced into another format', () => {
    const line = { type: 'user', sessionId: 's', message: { role: 'user', content: 'hi' } };
    expect(
      readError(() => readTranscriptLines([{ value: line, line: 1 }], { format: formats.openaiChat })).message,
    ).toBe('a Claude Code session log holds anthropic messages, not openai-chat');
  });
});

describe('LangChain JSON files', () => {
  const serialized = {
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', 'HumanMessage'],
    kwargs: { content: 'hi' },
  };
  const stored = { type: 'human', data: { content: 'hi' } };
  const fresh = { type: 'ai', content: 'summary', tool_calls: [] };

  it('writes a new message in the form the whole file is in', () => {
    expect(matchLangchainJsonForm([serialized, fresh], [serialized])).toEqual([
      serialized,
      {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'AIMessage'],
        kwargs: { content: 'summary', tool_calls: [] },
      },
    ]);
    expect(matchLangchainJsonForm([stored, fresh], [stored])).toEqual([
      stored,
      { type: 'ai', data: { content: 'summary', tool_calls: [] } },
    ]);
  });

  it('leaves a file of plain messages, or of mixed forms, as the adapter wrote it', () => {
    expect(matchLangchainJsonForm([fresh], [{ type: 'human', content: 'hi' }])).toEqual([fresh]);
    expect(matchLangchainJsonForm([fresh], [serialized, stored])).toEqual([fresh]);
  });
});

describe('unknown input', () => {
  it('says a JSON value that is no history is in an unknown format', () => {
    const error = readError(() => readTranscriptDocument('hello'));
    expect(error.unknownFormat).toBe(true);
  });

  it('says the same of an object that is neither a body nor a message', () => {
    const error = readError(() => readTranscriptDocument({ conversation: [] }));
    expect(error).toMatchObject({ unknownFormat: true, message: 'a JSON object without "messages"' });
  });
});

describe('Anthropic request bodies', () => {
  it('checks the blocks of system, naming the field', () => {
    expect(readError(() => readTranscriptDocument({ system: [{ text: 'S' }], messages: [] })).message).toMatch(
      /^request body: system\[0\]\.type: /,
    );
  });
});

describe('the model a transcript names', () => {
  it("reads a request body's model", () => {
    const transcript = readTranscriptDocument({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    expect(transcript.model).toBe('gpt-4.1');
  });

  it("reads a Claude Code log's first real model, past the client's own synthetic lines", () => {
    const line = (type: string, message: Record<string, unknown>, uuid: string): Record<string, unknown> => ({
      type,
      sessionId: 's',
      uuid,
      message,
    });
    const transcript = readTranscriptLines([
      { value: line('user', { role: 'user', content: 'hi' }, 'u1'), line: 1 },
      { value: line('assistant', { role: 'assistant', model: '<synthetic>', content: 'x' }, 'u2'), line: 2 },
      { value: line('user', { role: 'user', content: 'again' }, 'u3'), line: 3 },
      { value: line('assistant', { role: 'assistant', model: 'claude-opus-4-1', content: 'y' }, 'u4'), line: 4 },
    ]);
    expect(transcript.model).toBe('claude-opus-4-1');
  });

  it('leaves the model out when the file does not name one', () => {
    expect(readTranscriptDocument([{ role: 'user', content: 'hi' }]).model).toBeUndefined();
  });
});
