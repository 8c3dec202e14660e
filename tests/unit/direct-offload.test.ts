import { describe, expect, it } from 'vitest';
import { createToolResultOffloader, offloadToolResultWithWriter } from '../../src/api/direct-offload.js';
import { WriteFailedError } from '../../src/core/errors.js';
import { buildDirectReference, buildPreview } from '../../src/core/offload-reference.js';
import type { ContentBlock, Message } from '../../src/core/types.js';
import { assistantMessage, blocksOf, countWrites, createMemoryWriter, deepFreeze, text, toolResult, toolUse, userMessage } from '../fixtures/offload-fixtures.js';

const SESSION = 'session-abc123';
const OUT = '.offload';

describe('offloadToolResultWithWriter — writing a result and replacing it', () => {
  it('writes a string content whole and replaces it with the path reference', async () => {
    const writer = createMemoryWriter();
    const content = text(1500);
    const result = await offloadToolResultWithWriter(userMessage(toolResult('toolu_xyz', content)), SESSION, OUT, writer);

    const path = '.offload/session-abc123/toolu_xyz.md';
    expect(writer.files.get(path)).toBe(content);
    expect(result.message).toEqual(userMessage(toolResult('toolu_xyz', `[Tool result offloaded to file: ${path}]`)));
    expect(result.file).toBe(path);
    expect(result.files).toEqual([path]);
  });

  it('writes an array content as JSON.stringify(array) and replaces it with a string', async () => {
    const writer = createMemoryWriter();
    const content: ContentBlock[] = [{ type: 'text', text: text(1200) }, { type: 'image', source: { type: 'base64', data: 'AA' } }];
    const result = await offloadToolResultWithWriter(userMessage(toolResult('toolu_arr', content)), SESSION, OUT, writer);

    expect(writer.files.get('.offload/session-abc123/toolu_arr.md')).toBe(JSON.stringify(content));
    expect(blocksOf(result.message)[0]!.content).toBe('[Tool result offloaded to file: .offload/session-abc123/toolu_arr.md]');
    expect(result.freedChars).toBe(JSON.stringify(content).length - String(blocksOf(result.message)[0]!.content).length);
  });

  it('rejects a failed write with WRITE_FAILED, the original error as cause, the message unchanged', async () => {
    const cause = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const writer = createMemoryWriter({ failWrite: () => cause });
    const message = deepFreeze(userMessage(toolResult('t', text(2000))));
    const snapshot = structuredClone(message);
    const error: unknown = await offloadToolResultWithWriter(message, SESSION, OUT, writer).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(WriteFailedError);
    expect(error).toMatchObject({ code: 'WRITE_FAILED', cause, message: expect.stringContaining('EACCES: permission denied') });
    expect(message).toEqual(snapshot);
  });
});

describe('offloadToolResultWithWriter — counts, files and copies', () => {
  it('freedChars is the original count minus the reference length', async () => {
    const result = await offloadToolResultWithWriter(userMessage(toolResult('t', text(5000))), SESSION, OUT, createMemoryWriter());
    const reference = '[Tool result offloaded to file: .offload/session-abc123/t.md]';
    expect(result.freedChars).toBe(5000 - reference.length);
  });

  it('does no threshold check: a tiny content is offloaded and freedChars goes negative', async () => {
    const writer = createMemoryWriter();
    const result = await offloadToolResultWithWriter(userMessage(toolResult('t', 'ok')), SESSION, OUT, writer);
    expect(writer.files.get('.offload/session-abc123/t.md')).toBe('ok');
    expect(result.freedChars).toBe(2 - '[Tool result offloaded to file: .offload/session-abc123/t.md]'.length);
    expect(result.freedChars).toBeLessThan(0);
  });

  it('creates <outputDir>/<sessionId>/ and names the file <tool_use_id>.md', async () => {
    const writer = createMemoryWriter({ resolve: true });
    const result = await offloadToolResultWithWriter(userMessage(toolResult('toolu_xyz', text(1000))), SESSION, OUT, writer);
    // the store's own folder first (it holds the package's marker), then the session's
    expect(writer.calls.filter((call) => call.method === 'ensureDir').at(-1)).toEqual({ method: 'ensureDir', path: '/abs/.offload/session-abc123' });
    expect(result.file).toBe('/abs/.offload/session-abc123/toolu_xyz.md');
    expect(blocksOf(result.message)[0]!.content).toBe('[Tool result offloaded to file: /abs/.offload/session-abc123/toolu_xyz.md]');
  });

  it('overwrites the file when the same id comes again in the same session', async () => {
    const writer = createMemoryWriter();
    await offloadToolResultWithWriter(userMessage(toolResult('same', 'first')), SESSION, OUT, writer);
    const second = await offloadToolResultWithWriter(userMessage(toolResult('same', 'second')), SESSION, OUT, writer);
    expect(second.file).toBe('.offload/session-abc123/same.md');
    expect(writer.files.get('.offload/session-abc123/same.md')).toBe('second');
    expect(countWrites(writer)).toBe(2);
  });

  it('returns a deep copy and leaves a deep-frozen input as it was', async () => {
    // a message with a field of its own: not a literal of type Message, which names role and content only
    const message = deepFreeze({
      role: 'user' as const,
      id: 'm1',
      content: [{ type: 'text', text: 'Here:', citations: [{ n: 1 }] }, toolResult('t', text(1000), { is_error: false })] as ContentBlock[],
    });
    const snapshot = structuredClone(message);
    const result = await offloadToolResultWithWriter(message, SESSION, OUT, createMemoryWriter());

    expect(message).toEqual(snapshot);
    expect(result.message).not.toBe(message);
    expect(blocksOf(result.message)[0]).toEqual(blocksOf(message)[0]);
    expect(blocksOf(result.message)[0]).not.toBe(blocksOf(message)[0]);
    expect(blocksOf(result.message)[0]!.citations).not.toBe(blocksOf(message)[0]!.citations);
    expect(result.message).toMatchObject({ id: 'm1', role: 'user' });
    expect(blocksOf(result.message)[1]).toEqual({
      type: 'tool_result',
      tool_use_id: 't',
      content: '[Tool result offloaded to file: .offload/session-abc123/t.md]',
      is_error: false,
    });
  });
});

describe('offloadToolResultWithWriter — several results, duplicates, references, bad input', () => {
  it('offloads every tool_result of a message with parallel tool calls; file is the first, files all', async () => {
    const writer = createMemoryWriter();
    const message = userMessage(toolResult('call_1', text(1000, 'a')), { type: 'text', text: 'between' }, toolResult('call_2', text(3000, 'b')));
    const result = await offloadToolResultWithWriter(message, SESSION, OUT, writer);

    expect(result.files).toEqual(['.offload/session-abc123/call_1.md', '.offload/session-abc123/call_2.md']);
    expect(result.file).toBe('.offload/session-abc123/call_1.md');
    expect(writer.files.get('.offload/session-abc123/call_2.md')).toBe(text(3000, 'b'));
    expect(blocksOf(result.message)[1]).toEqual({ type: 'text', text: 'between' });
    const references = 2 * '[Tool result offloaded to file: .offload/session-abc123/call_1.md]'.length;
    expect(result.freedChars).toBe(4000 - references);
  });

  it('gives the second use of one id in the same message <id>~1.md, a name no real id has, so no content is lost', async () => {
    const writer = createMemoryWriter();
    const result = await offloadToolResultWithWriter(userMessage(toolResult('d', 'one'), toolResult('d', 'two'), toolResult('d-1', 'three')), SESSION, OUT, writer);
    expect(result.files).toEqual(['.offload/session-abc123/d.md', '.offload/session-abc123/d~1.md', '.offload/session-abc123/d-1.md']);
    expect([...writer.files.values()]).toEqual(['one', 'two', 'three']);
  });

  it('keeps a duplicate\'s file when a later message brings a real id that looks like its name', async () => {
    const writer = createMemoryWriter();
    await offloadToolResultWithWriter(userMessage(toolResult('d', 'one'), toolResult('d', 'two')), SESSION, OUT, writer);
    await offloadToolResultWithWriter(userMessage(toolResult('d-1', 'three'), toolResult('d~1', 'four')), SESSION, OUT, writer);
    expect(writer.files.get('.offload/session-abc123/d~1.md')).toBe('two');
    expect([...writer.files.values()]).toContain('four');
  });

  it('leaves existing references of either mode as they are', async () => {
    const writer = createMemoryWriter();
    const batchReference = '[Content offloaded to: ./tool-result-old.md]';
    const message = userMessage(toolResult('old', batchReference), toolResult('new', text(1000)));
    const result = await offloadToolResultWithWriter(message, SESSION, OUT, writer);
    expect(blocksOf(result.message)[0]!.content).toBe(batchReference);
    expect(result.files).toEqual(['.offload/session-abc123/new.md']);
  });

  it('returns the message itself with freedChars 0, file null, files [] when every tool_result already is a reference', async () => {
    const writer = createMemoryWriter();
    const message = userMessage(toolResult('old', '[Tool result offloaded to file: /x/old.md]'));
    const result = await offloadToolResultWithWriter(message, SESSION, OUT, writer);
    expect(result).toEqual({ message, freedChars: 0, file: null, files: [] });
    expect(result.message).toBe(message);
    expect(writer.calls).toEqual([]);
  });

  it.each<[string, Message]>([
    ['string content', { role: 'user', content: 'just text' }],
    ['blocks without tool_result', userMessage({ type: 'text', text: 'hi' })],
    ['an empty block list', userMessage()],
  ])('rejects a message with %s with NO_TOOL_RESULT, writing nothing', async (_label, message) => {
    const writer = createMemoryWriter();
    await expect(offloadToolResultWithWriter(message, SESSION, OUT, writer)).rejects.toMatchObject({
      code: 'NO_TOOL_RESULT',
      name: 'NoToolResultError',
      message: expect.stringContaining('tool_result'),
    });
    expect(writer.calls).toEqual([]);
  });

  it.each(['../up', 'a/b', '', '.', '..', 'has space', 'x'.repeat(201)])('rejects the sessionId %j with UNSAFE_PATH before any write', async (sessionId) => {
    const writer = createMemoryWriter();
    await expect(offloadToolResultWithWriter(userMessage(toolResult('t', text(1000))), sessionId, OUT, writer)).rejects.toMatchObject({
      code: 'UNSAFE_PATH',
      message: expect.stringContaining('sessionId'),
    });
    expect(writer.calls).toEqual([]);
  });

  it('maps an unsafe tool_use_id to a safe file name in the session folder instead of failing the message', async () => {
    const writer = createMemoryWriter();
    const message = userMessage(toolResult('fine', text(1000)), toolResult('../../etc/passwd', text(1001)));
    const result = await offloadToolResultWithWriter(message, SESSION, OUT, writer);
    expect(result.files[0]).toBe('.offload/session-abc123/fine.md');
    expect(result.files[1]).toMatch(/^\.offload\/session-abc123\/etcpasswd~[0-9a-z]{11}\.md$/);
    expect(writer.files.get(result.files[1]!)).toBe(text(1001));
  });

  it('rejects a malformed message with INVALID_MESSAGE and the path of the bad field', async () => {
    const writer = createMemoryWriter();
    const message = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 12, content: 'x' }] };
    await expect(offloadToolResultWithWriter(message as never, SESSION, OUT, writer)).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
      path: 'message.content[0].tool_use_id',
    });
  });

  it('rejects an empty outputDir and a writer without its methods with INVALID_OPTION', async () => {
    const message = userMessage(toolResult('t', text(1000)));
    await expect(offloadToolResultWithWriter(message, SESSION, '', createMemoryWriter())).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    await expect(offloadToolResultWithWriter(message, SESSION, OUT, {} as never)).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  });

  it('follows the reference with a preview when asked, and counts it in freedChars', async () => {
    const content = `START${text(1000, '.')}END`;
    const result = await offloadToolResultWithWriter(userMessage(toolResult('t', content)), SESSION, OUT, createMemoryWriter(), {
      preview: { headChars: 5, tailChars: 3 },
    });
    const reference = blocksOf(result.message)[0]!.content as string;
    expect(reference).toBe(
      '[Tool result offloaded to file: .offload/session-abc123/t.md]\nPreview (first 5 and last 3 of 1008 chars):\nSTART\n[... 1000 chars omitted ...]\nEND',
    );
    expect(result.freedChars).toBe(1008 - reference.length);
  });
});

describe('createToolResultOffloader — the direct offload middleware', () => {
  it('offloads a block of 1000 chars and keeps one of 999 by default', async () => {
    const writer = createMemoryWriter();
    const offload = createToolResultOffloader({ sessionId: SESSION, outputDir: OUT, writer });
    const message = userMessage(toolResult('big', text(1000)), toolResult('small', text(999)));
    const result = await offload(message);

    expect(blocksOf(result)[0]!.content).toBe('[Tool result offloaded to file: .offload/session-abc123/big.md]');
    expect(blocksOf(result)[1]!.content).toBe(text(999));
    expect([...writer.files.keys()]).toEqual(['.offload/session-abc123/big.md']);
  });

  it.each<[string, Message]>([
    ['only small results', userMessage(toolResult('a', text(999)), toolResult('b', 'x'))],
    ['no tool_result', userMessage({ type: 'text', text: text(5000) })],
    ['string content', { role: 'user', content: text(5000) }],
    ['only references', userMessage(toolResult('a', buildDirectReference('/o/a.md') + buildPreview(text(2000), { headChars: 900, tailChars: 900 })))],
  ])('returns the same message object, writing nothing, for %s', async (_label, message) => {
    const writer = createMemoryWriter();
    const offload = createToolResultOffloader({ sessionId: SESSION, outputDir: OUT, writer });
    expect(await offload(message)).toBe(message);
    expect(writer.calls).toEqual([]);
  });

  it('takes a custom threshold', async () => {
    const writer = createMemoryWriter();
    const offload = createToolResultOffloader({ sessionId: SESSION, outputDir: OUT, writer, threshold: 10 });
    const result = await offload(userMessage(toolResult('t', text(10))));
    expect(blocksOf(result)[0]!.content).toBe('[Tool result offloaded to file: .offload/session-abc123/t.md]');
  });

  it('keeps the results of excluded tools, named by the assistant message that made the calls', async () => {
    const writer = createMemoryWriter();
    const offload = createToolResultOffloader({ sessionId: SESSION, outputDir: OUT, writer, excludeTools: ['read_file'] });
    const calls = assistantMessage(toolUse('r', 'read_file'), toolUse('b', 'bash'));
    const message = userMessage(toolResult('r', text(2000)), toolResult('b', text(2000)));

    const result = await offload(message, calls);
    expect(blocksOf(result)[0]!.content).toBe(text(2000));
    expect(blocksOf(result)[1]!.content).toBe('[Tool result offloaded to file: .offload/session-abc123/b.md]');

    const onlyExcluded = userMessage(toolResult('r', text(2000)));
    expect(await offload(onlyExcluded, calls)).toBe(onlyExcluded);
  });

  it('excludes nothing when no assistant message is given', async () => {
    const writer = createMemoryWriter();
    const offload = createToolResultOffloader({ sessionId: SESSION, outputDir: OUT, writer, excludeTools: ['read_file'] });
    const result = await offload(userMessage(toolResult('r', text(2000))));
    expect(blocksOf(result)[0]!.content).toBe('[Tool result offloaded to file: .offload/session-abc123/r.md]');
  });

  it('works on a deep-frozen message and leaves it unchanged', async () => {
    const offload = createToolResultOffloader({ sessionId: SESSION, outputDir: OUT, writer: createMemoryWriter() });
    const message = deepFreeze(userMessage(toolResult('t', text(1500))));
    const snapshot = structuredClone(message);
    const result = await offload(message);
    expect(result).not.toBe(message);
    expect(message).toEqual(snapshot);
  });

  it.each([
    [{ sessionId: '../x', outputDir: OUT }, 'UNSAFE_PATH', /sessionId/],
    [{ sessionId: SESSION, outputDir: '' }, 'INVALID_OPTION', /outputDir must be a non-blank string/],
    [{ sessionId: SESSION, outputDir: OUT, threshold: 0 }, 'INVALID_OPTION', /threshold must be a number >= 1, got 0/],
    [{ sessionId: SESSION, outputDir: OUT, excludeTools: [1] }, 'INVALID_OPTION', /excludeTools must be an array of strings/],
    [{ sessionId: SESSION, outputDir: OUT, writer: { writeFile: 1 } }, 'INVALID_OPTION', /writer must be a FileWriter/],
  ])('rejects the options %j when created', (options, code, message) => {
    expect(() => createToolResultOffloader(options as never)).toThrow(message);
    expect(() => createToolResultOffloader(options as never)).toThrow(expect.objectContaining({ code }));
  });

  it('rejects a malformed message or assistant message with INVALID_MESSAGE', async () => {
    const offload = createToolResultOffloader({ sessionId: SESSION, outputDir: OUT, writer: createMemoryWriter() });
    await expect(offload({ role: 'tool', content: 'x' } as never)).rejects.toMatchObject({ code: 'INVALID_MESSAGE', path: 'message.role' });
    await expect(offload(userMessage(toolResult('t', text(2000))), { role: 'assistant' } as never)).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
      path: 'assistantMessage.content',
    });
  });

  it('rejects a failed write with WRITE_FAILED', async () => {
    const offload = createToolResultOffloader({ sessionId: SESSION, outputDir: OUT, writer: createMemoryWriter({ failWrite: () => new Error('EROFS') }) });
    await expect(offload(userMessage(toolResult('t', text(2000))))).rejects.toMatchObject({ code: 'WRITE_FAILED' });
  });
});
