import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTruncatedJson, locateJsonError } from '../../../../src/cli/formats/json-error-location.js';
import { parseTranscript } from '../../../../src/cli/formats/parse-transcript.js';
import { serializeHistory } from '../../../../src/cli/formats/serialize-transcript.js';
import { CliError } from '../../../../src/cli/errors.js';
import { rebuildClaudeCodeLog } from '../../../../src/formats/transcripts/claude-code-log.js';
import { readTranscriptDocument } from '../../../../src/formats/transcripts/read-transcript.js';
import type { ContentBlock, Message } from '../../../../src/index.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/cli');

function readFixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** A compact view of a history: role and block types (with ids), or the first words of a string. */
function outline(messages: readonly Message[]): string[] {
  return messages.map((message) => {
    if (typeof message.content === 'string') return `${message.role}: ${message.content.slice(0, 24)}`;
    const blocks = message.content.map((block: ContentBlock) => {
      const id = (block as { id?: string; tool_use_id?: string }).id ?? (block as { tool_use_id?: string }).tool_use_id;
      return id === undefined ? block.type : `${block.type}(${id})`;
    });
    return `${message.role}: ${blocks.join(', ')}`;
  });
}

function parseError(text: string, source = 'input.json'): string {
  try {
    parseTranscript(text, source);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return (error as Error).message;
  }
  throw new Error('expected a parse error');
}

/** A Claude Code log line. */
function logLine(fields: Record<string, unknown>): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    sessionId: 's',
    uuid: 'u',
    timestamp: '2025-11-20T10:00:00Z',
    ...fields,
  });
}

describe('parseTranscript: format detection', () => {
  it('reads a JSON array of messages', () => {
    const transcript = parseTranscript(readFixture('messages.json'), 'messages.json');
    expect(transcript.shape).toBe('json');
    expect(transcript.format.name).toBe('anthropic');
    expect(transcript.messages).toHaveLength(11);
    expect(transcript.messages[0]).toEqual({ role: 'system', content: expect.stringContaining('coding agent') });
    expect(transcript.toolDefinitions).toBeUndefined();
  });

  it('reads JSONL, one message per line, to the same messages as the array', () => {
    const lines = parseTranscript(readFixture('messages.jsonl'), 'messages.jsonl');
    expect(lines.shape).toBe('jsonl');
    expect(lines.messages).toEqual(parseTranscript(readFixture('messages.json'), 'messages.json').messages);
  });

  it('reads a request body: block system becomes the leading system message, tools are kept for counting', () => {
    const transcript = parseTranscript(readFixture('request-body.json'), 'request-body.json');
    expect(transcript.shape).toBe('request-body');
    expect(transcript.messages[0]).toEqual({
      role: 'system',
      content: [
        {
          type: 'text',
          text: 'You are a coding agent working in /home/dev/app.',
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
    expect(transcript.messages).toHaveLength(11);
    expect(transcript.toolDefinitions).toHaveLength(3);
  });

  it('reads a request body with a string system', () => {
    const transcript = parseTranscript(readFixture('request-body-string-system.json'), 'body.json');
    expect(transcript.messages[0]).toEqual({ role: 'system', content: 'You are a coding agent.' });
    expect(transcript.toolDefinitions).toBeUndefined();
  });

  it('reads a request body without system: no system message is added', () => {
    const transcript = parseTranscript(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }), 'body.json');
    expect(transcript.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('reads a Claude Code session log', () => {
    expect(parseTranscript(readFixture('claude-code-session.jsonl'), 'session.jsonl').shape).toBe('claude-code');
  });

  it('reads a file of one message (JSON and JSONL at once) as JSONL', () => {
    const transcript = parseTranscript('{"role":"user","content":"hello"}\n', 'one.jsonl');
    expect(transcript.shape).toBe('jsonl');
    expect(transcript.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it('ignores a byte-order mark, leading blank lines and blank JSONL lines', () => {
    const text = '\ufeff\n\n{"role":"user","content":"a"}\n\n{"role":"assistant","content":"b"}\n';
    expect(parseTranscript(text, 'x.jsonl').messages).toHaveLength(2);
  });

  it('reads an empty array as an empty history', () => {
    expect(parseTranscript('[]', 'x.json')).toMatchObject({ shape: 'json', messages: [] });
  });
});

describe('parseTranscript: bad input', () => {
  it('reports invalid JSON with its line and column', () => {
    expect(parseError(readFixture('bad-json.json'), 'bad-json.json')).toBe(
      'bad-json.json: invalid JSON at line 3, column 43: unexpected "}", expected a property name',
    );
  });

  it('reports a truncated document at its end', () => {
    expect(parseError(readFixture('bad-json-truncated.json'))).toMatch(/line 4, column 1: unexpected end of input/);
  });

  it('reports a bad JSONL line with the line number in the file', () => {
    expect(parseError(readFixture('bad-jsonl.jsonl'), 'bad-jsonl.jsonl')).toMatch(
      /^bad-jsonl\.jsonl: invalid JSON at line 3, column 54: /,
    );
  });

  it('reports a pretty-printed object that breaks on a later line at that line', () => {
    expect(parseError('{\n  "messages": [\n    { "role": "user", "content": "a" },,\n  ]\n}')).toMatch(
      /line 3, column 40: unexpected ","/,
    );
  });

  it('reports an unknown format: plain text', () => {
    expect(parseError(readFixture('unknown-format.txt'), 'notes.txt')).toMatch(
      /^notes\.txt: unknown format: the input starts with "user: The startOfWeek/,
    );
  });

  it('reports an unknown format: an object without messages', () => {
    expect(parseError(readFixture('unknown-object.json'))).toMatch(
      /unknown format: a JSON object without "messages"; expected .* a request body \{ messages \} or \{ input \}/,
    );
  });

  it('reports an unknown format: JSONL of objects that are neither messages nor log lines', () => {
    expect(parseError('{"speaker":"user"}\n{"speaker":"bot"}\n')).toMatch(/unknown format: the first line is neither/);
  });

  it('reports empty input', () => {
    expect(parseError('  \n')).toMatch(/empty input/);
  });

  it('names the index of a message that is not a message', () => {
    expect(parseError(readFixture('not-a-message.json'), 'not-a-message.json')).toBe(
      'not-a-message.json: not a message: messages[2].role: expected "system", "user" or "assistant", got "tool"',
    );
  });

  it('names the index of a message that breaks with the format of the ones before it: mixed formats are an error, not a guess', () => {
    const mixed = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'read_file', input: {} }] },
      { role: 'tool', tool_call_id: 'toolu_01', content: 'Edited src/date.ts' },
    ];
    expect(parseError(JSON.stringify(mixed), 'mixed.json')).toBe(
      'mixed.json: messages[1]: mixes message formats: this message is openai-chat, the messages before it are anthropic',
    );
  });

  it('names the JSONL line of the message that mixes formats', () => {
    const lines = [
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}',
      '{"role":"tool","tool_call_id":"a","content":"x"}',
    ];
    expect(parseError(lines.join('\n'), 'mixed.jsonl')).toMatch(
      /^mixed\.jsonl: line 2: messages\[1\]: mixes message formats/,
    );
  });

  it('names the index and field of a message that fits no format, checked in the format of the ones before it', () => {
    expect(
      parseError(
        JSON.stringify([
          { role: 'user', content: 'a' },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 7 }] },
        ]),
      ),
    ).toBe('input.json: not a message: messages[1].content[0].tool_use_id: expected a string, got 7');
  });

  it('names the JSONL line and the index of a message that is not a message', () => {
    expect(parseError(readFixture('not-a-message.jsonl'), 'x.jsonl')).toBe(
      'x.jsonl: line 3: not a message: messages[2].content[0].tool_use_id: expected a string, got 42',
    );
  });

  it('names the index in a request body', () => {
    expect(parseError(JSON.stringify({ messages: [{ role: 'user', content: 'a' }, { role: 'user' }] }))).toMatch(
      /not a message: messages\[1\]\.content: expected a string or an array of blocks/,
    );
  });

  it('rejects a request body whose system is neither a string nor blocks', () => {
    expect(parseError(JSON.stringify({ system: 42, messages: [] }))).toMatch(
      /"system" must be a string or an array of blocks/,
    );
  });

  it('rejects a JSONL line that is not an object', () => {
    expect(parseError('{"role":"user","content":"a"}\n[1,2]\n')).toMatch(/line 2: expected a JSON object/);
  });

  it('rejects a Claude Code user line without a message, naming the line', () => {
    expect(parseError([logLine({ type: 'summary', summary: 's' }), logLine({ type: 'user' })].join('\n'))).toMatch(
      /line 2: a "user" line without a message object/,
    );
  });
});

describe('parseTranscript: a JSONL file still being written', () => {
  const logLines = readFixture('claude-code-session.jsonl').trimEnd().split('\n');
  const complete = logLines.slice(0, 24);
  const beingWritten = logLines[24] ?? '';
  const warning = 'session.jsonl: line 25: skipped the last line, cut off mid-JSON (a log still being written?)';

  it('reads a Claude Code log without its last line when that line is cut off, with a warning naming the file and line', () => {
    const transcript = parseTranscript([...complete, beingWritten.slice(0, 200)].join('\n'), 'session.jsonl');
    expect(transcript.shape).toBe('claude-code');
    expect(transcript.messages).toEqual(parseTranscript(complete.join('\n'), 'session.jsonl').messages);
    expect(transcript.warnings).toEqual([warning]);
  });

  it('tolerates a cut at any point of the last line', () => {
    const expected = parseTranscript(complete.join('\n'), 'session.jsonl').messages;
    for (let length = 1; length < beingWritten.length; length += 1) {
      const transcript = parseTranscript(`${[...complete, beingWritten.slice(0, length)].join('\n')}`, 'session.jsonl');
      expect({ length, messages: transcript.messages, warnings: transcript.warnings }).toEqual({
        length,
        messages: expected,
        warnings: [warning],
      });
    }
  });

  it('looks past blank lines for the last line', () => {
    const transcript = parseTranscript(
      `${[...complete, beingWritten.slice(0, 50)].join('\n')}\n\n  \n`,
      'session.jsonl',
    );
    expect(transcript.warnings).toEqual([warning]);
  });

  it('reads JSONL messages the same way', () => {
    const lines = readFixture('messages.jsonl').trimEnd().split('\n');
    const cut = [...lines.slice(0, -1), (lines.at(-1) ?? '').slice(0, 30)].join('\n');
    const transcript = parseTranscript(cut, 'messages.jsonl');
    expect(transcript.messages).toEqual(
      parseTranscript(readFixture('messages.json'), 'messages.json').messages.slice(0, -1),
    );
    expect(transcript.warnings).toEqual([
      `messages.jsonl: line ${lines.length}: skipped the last line, cut off mid-JSON (a log still being written?)`,
    ]);
  });

  it('has no warnings for a whole file', () => {
    expect(parseTranscript(readFixture('claude-code-session.jsonl'), 'session.jsonl').warnings).toBeUndefined();
  });

  it('still refuses a cut line that is not the last, with its line and column', () => {
    const text = [...complete.slice(0, 10), complete[10]?.slice(0, 40), ...complete.slice(11)].join('\n');
    expect(parseError(text, 'session.jsonl')).toMatch(/^session\.jsonl: invalid JSON at line 11, column \d+: /);
  });

  it('still refuses a last line broken before its end: that is not a line being written', () => {
    expect(parseError('{"role":"user","content":"a"}\n{"role": ,"content":"b"}', 'x.jsonl')).toBe(
      'x.jsonl: invalid JSON at line 2, column 10: unexpected ",", expected a value',
    );
  });

  it('still refuses a JSON document cut short (only JSONL lines are written one by one)', () => {
    expect(parseError('[{"role":"user","content":"a"},\n{"role":"us')).toMatch(/invalid JSON at line 2/);
  });
});

describe('Claude Code session logs', () => {
  const transcript = parseTranscript(readFixture('claude-code-session.jsonl'), 'session.jsonl');

  it('rebuilds the main conversation: one assistant message per message.id, then one user message with its results', () => {
    expect(outline(transcript.messages)).toEqual([
      'user: <local-command-caveat>Ca',
      'user: The startOfWeek test fai',
      'assistant: text, tool_use(toolu_01Read1), tool_use(toolu_01Read2), tool_use(toolu_01Bash1)',
      'user: tool_result(toolu_01Read1), tool_result(toolu_01Read2), tool_result(toolu_01Bash1)',
      'assistant: thinking, text, tool_use(toolu_02Edit1)',
      'user: tool_result(toolu_02Edit1)',
      'assistant: server_tool_use(srvtoolu_01), tool_use(toolu_03Bash2)',
      'user: tool_result(toolu_03Bash2)',
      'user: text',
      'assistant: text',
    ]);
  });

  it('keeps isMeta user lines (the model reads them)', () => {
    expect(transcript.messages[0]?.content).toMatch(/^<local-command-caveat>/);
    expect(transcript.messages[8]?.content).toEqual([
      { type: 'text', text: 'PostToolUse hook: prettier --check src/date.ts passed' },
    ]);
  });

  it('drops sidechain lines and lines of other types (summary, custom-title, queue-operation, attachment, system, file-history-snapshot)', () => {
    const text = JSON.stringify(transcript.messages);
    expect(text).not.toContain('toolu_side1');
    expect(text).not.toContain('Auto-compact is enabled');
    expect(text).not.toContain('Fix startOfWeek on Sundays');
  });

  it('passes unknown blocks and fields through untouched (thinking signature, server_tool_use, is_error)', () => {
    const thinking = (transcript.messages[4]?.content as ContentBlock[])[0];
    expect(thinking).toEqual({
      type: 'thinking',
      thinking: expect.any(String),
      signature: 'EqQBCkYIBxgCKkB2c2lnbmF0dXJl',
    });
    expect((transcript.messages[6]?.content as ContentBlock[])[0]).toMatchObject({
      type: 'server_tool_use',
      name: 'web_search',
    });
    expect((transcript.messages[3]?.content as ContentBlock[])[2]).toMatchObject({ is_error: true });
  });

  it('keeps only role and content of each message (the log metadata is not part of a request)', () => {
    for (const message of transcript.messages) expect(Object.keys(message).sort()).toEqual(['content', 'role']);
  });

  it('orders the results of parallel calls by call, whatever order they finished in', () => {
    const lines = [
      logLine({
        type: 'assistant',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Read', input: {} }] },
      }),
      logLine({
        type: 'assistant',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'Read', input: {} }] },
      }),
      logLine({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'B' }] },
      }),
      logLine({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'A' }] },
      }),
    ];
    expect(outline(parseTranscript(lines.join('\n'), 'x.jsonl').messages)).toEqual([
      'assistant: tool_use(a), tool_use(b)',
      'user: tool_result(a), tool_result(b)',
    ]);
  });

  it('puts other user content of a turn after its results, and keeps a result without a call where it is', () => {
    const lines = [
      logLine({ type: 'user', message: { role: 'user', content: 'go' } }),
      logLine({
        type: 'assistant',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Bash', input: {} }] },
      }),
      logLine({
        type: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: 'A' },
            { type: 'text', text: 'note' },
          ],
        },
      }),
      logLine({ type: 'user', isMeta: true, message: { role: 'user', content: 'meta' } }),
      logLine({
        type: 'assistant',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'Bash', input: {} }] },
      }),
      logLine({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'B' }] },
      }),
      logLine({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'lost', content: '?' }] },
      }),
      logLine({ type: 'assistant', message: { role: 'assistant', content: 'no id' } }),
      logLine({ type: 'assistant', message: { role: 'assistant', content: 'no id either' } }),
    ];
    expect(outline(parseTranscript(lines.join('\n'), 'x.jsonl').messages)).toEqual([
      'user: go',
      'assistant: tool_use(a), tool_use(b)',
      'user: tool_result(a), tool_result(b)',
      'user: text',
      'user: meta',
      'user: tool_result(lost)',
      'assistant: text',
      'assistant: text',
    ]);
  });

  it('names the file line of a bad message in a log', () => {
    const lines = [
      logLine({ type: 'summary', summary: 's' }),
      logLine({
        type: 'assistant',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 7, name: 'Read', input: {} }] },
      }),
    ];
    expect(parseError(lines.join('\n'), 'log.jsonl')).toBe(
      'log.jsonl: line 2: not a message: messages[0].content[0].id: expected a string, got 7',
    );
  });

  it('rebuildClaudeCodeLog reports the first line of each rebuilt message', () => {
    const rebuilt = rebuildClaudeCodeLog([
      { value: { type: 'user', message: { role: 'user', content: 'a' } }, line: 3 },
      {
        value: {
          type: 'assistant',
          message: { id: 'm', role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'X', input: {} }] },
        },
        line: 5,
      },
      {
        value: {
          type: 'user',
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: '' }] },
        },
        line: 9,
      },
    ]);
    expect(rebuilt.lines).toEqual([3, 5, 9]);
  });
});

describe('writing a new history back in the input shape', () => {
  it('keeps a request body a request body: system back in place, other fields kept', () => {
    const body = {
      model: 'm',
      max_tokens: 10,
      system: 'S',
      tools: [{ name: 't' }],
      messages: [{ role: 'user', content: 'a' }],
    };
    const transcript = readTranscriptDocument(body);
    const written = JSON.parse(
      serializeHistory(transcript, [...transcript.messages, { role: 'assistant', content: 'b' }]),
    ) as unknown;
    expect(written).toEqual({
      ...body,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
    });
  });

  it('keeps block system content as blocks', () => {
    const system = [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }];
    const transcript = readTranscriptDocument({ system, messages: [] });
    expect(JSON.parse(serializeHistory(transcript, transcript.messages))).toEqual({ system, messages: [] });
  });

  it('writes a new first system message back to system when the old one was replaced', () => {
    const transcript = readTranscriptDocument({ system: 'S', messages: [{ role: 'user', content: 'a' }] });
    expect(
      JSON.parse(
        serializeHistory(transcript, [
          { role: 'system', content: 'T' },
          { role: 'user', content: 'b' },
        ]),
      ),
    ).toEqual({
      system: 'T',
      messages: [{ role: 'user', content: 'b' }],
    });
  });

  it('writes JSONL and Claude Code logs as a JSON array of messages', () => {
    for (const name of ['messages.jsonl', 'claude-code-session.jsonl']) {
      const transcript = parseTranscript(readFixture(name), name);
      expect(JSON.parse(serializeHistory(transcript, transcript.messages))).toEqual(transcript.messages);
    }
  });

  it("keeps a file's characters exactly, and escapes for standard output only what a terminal would obey, as JSON escapes", () => {
    const text = 'a\u001b[31mb\u0085c\u202ed\u007fe';
    const transcript = readTranscriptDocument([{ role: 'user', content: text }]);
    const file = serializeHistory(transcript, transcript.messages, 'file');
    const terminal = serializeHistory(transcript, transcript.messages, 'standard-output');
    expect(file).toContain('\u0085c\u202ed\u007fe');
    expect(terminal).not.toMatch(/[\u0080-\u009f\u202e\u007f]/);
    expect(terminal).toContain('\\u0085c\\u202ed\\u007fe');
    expect(JSON.parse(terminal)).toEqual(JSON.parse(file));
  });
});

describe('locateJsonError', () => {
  it.each([
    ['{"a": }', 1, 7, 'unexpected "}", expected a value'],
    ['[1,2', 1, 5, 'unexpected end of input, expected "]"'],
    ['{"a":1}x', 1, 8, 'unexpected "x", not a JSON value'],
    ['{"a":1} 2', 1, 9, 'unexpected "2", expected the end of the input'],
    ['{"a":tru}', 1, 6, 'unexpected "tru", not a JSON value'],
    ['{\n"a" 1}', 2, 5, 'unexpected "1", expected ":"'],
    ['["a\u0001"]', 1, 2, 'control character in string'],
    ['["\\x"]', 1, 2, 'bad escape in string'],
    ['[01]', 1, 3, 'unexpected "1", expected ","'],
    ['"abc', 1, 1, 'unterminated string'],
    ['[1,]', 1, 4, 'unexpected "]", expected a value'],
    ['[1] // note', 1, 5, 'comments are not JSON'],
    ['[1,\r\n\r\n }]', 3, 2, 'unexpected "}", expected a value'],
  ])('locates the error in %j at line %i, column %i', (text, line, column, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(locateJsonError(text)).toEqual({ line, column, reason: expect.stringContaining(reason) });
  });

  it('finds nothing in valid JSON', () => {
    const text = JSON.stringify({ a: [1, -2.5e3, 'x\n\u00e9\ud83d\ude00', true, false, null, {}] });
    expect(locateJsonError(text)).toBeUndefined();
  });
});

describe('isTruncatedJson', () => {
  it.each([
    '{',
    '{"type":"us',
    '{"type":"user",',
    '{"type":"user","mess',
    '{"a":[1,',
    '{"a":1',
    '{"a":-',
    '{"a":1.',
    '{"a":1e',
    '{"a":t',
    '{"a":fal',
    '{"a":nu',
    '{"a":"x\\',
    '{"a":"\\u00',
    '{"a":1 \r',
  ])('%j is JSON cut short', (text) => {
    expect(isTruncatedJson(text)).toBe(true);
  });

  it.each([
    '{"a":1}',
    '{"a": }',
    '{"a":1}}',
    '{"a":1 2',
    '{"a":1,}',
    '{"a" 1',
    '{"a":xyz',
    '{"a":trux',
    '{"role": "user" "content": "a"}',
    'hello',
  ])('%j is not', (text) => {
    expect(isTruncatedJson(text)).toBe(false);
  });
});
