/**
 * Direct offload on the memory store: one message's tool results stored under
 * `<sessionId>/<tool_use_id>.md` before the model sees them, what comes back, and what is refused
 * before anything is stored. The FileWriter form is refused and fails here through small writers
 * that never write; on real files it is in tests/integration/api/direct-offload.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  createToolResultOffloader,
  offloadToolResult,
  offloadToolResultWithWriter,
} from '../../../../src/api/direct-offload.js';
import { WriteFailedError } from '../../../../src/core/errors.js';
import type { DirectOffloadOptions, ToolResultOffloaderOptions } from '../../../../src/core/options/offload-options.js';
import { buildDirectReference, buildPreview } from '../../../../src/core/offload/offload-reference.js';
import type { ContentStore, FileWriter } from '../../../../src/core/ports.js';
import type { ContentBlock, Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import {
  assistantMessage,
  blocksOf,
  deepFreeze,
  memoryLocationOf as locationOf,
  readStore,
  text,
  toolResult,
  toolUse,
  userMessage,
} from '../../../fixtures/offload-fixtures.js';

const SESSION = 'session-abc123';

/** The reference that replaces a result stored under `key`. */
const referenceTo = (key: string): string => `[Tool result offloaded to file: ${locationOf(key)}]`;

/** Offloads `message` into `store` (a new memory store by default): the result and what the store holds after. */
async function offload(
  message: Message,
  options: Omit<DirectOffloadOptions, 'store' | 'outputDir' | 'sessionId'> = {},
  store: ContentStore = createMemoryStore(),
) {
  const result = await offloadToolResult(message, { ...options, store, sessionId: SESSION });
  return { result, stored: await readStore(store) };
}

/** The direct offload middleware over a new memory store, and that store. */
function createOffloader(options: Omit<ToolResultOffloaderOptions, 'store' | 'outputDir' | 'sessionId'> = {}) {
  const store = createMemoryStore();
  return { store, offload: createToolResultOffloader({ ...options, store, sessionId: SESSION }) };
}

/** A writer whose every write fails with `cause`. */
function createFailingWriter(cause: unknown): FileWriter {
  return { ensureDir: async () => undefined, writeFile: () => Promise.reject(cause) };
}

describe('offloadToolResult: storing a result and replacing it', () => {
  it('stores a string content whole under <sessionId>/<tool_use_id>.md and replaces it with the reference', async () => {
    const content = text(1500);
    const { result, stored } = await offload(userMessage(toolResult('toolu_xyz', content)));
    expect(stored).toEqual({ 'session-abc123/toolu_xyz.md': content });
    expect(result.message).toEqual(userMessage(toolResult('toolu_xyz', referenceTo('session-abc123/toolu_xyz.md'))));
    expect(result.file).toBe(locationOf('session-abc123/toolu_xyz.md'));
    expect(result.files).toEqual([locationOf('session-abc123/toolu_xyz.md')]);
  });

  it('stores an array content as JSON.stringify(array) and replaces it with a string', async () => {
    const content: ContentBlock[] = [
      { type: 'text', text: text(1200) },
      { type: 'image', source: { type: 'base64', data: 'AA' } },
    ];
    const { result, stored } = await offload(userMessage(toolResult('toolu_arr', content)));
    expect(stored['session-abc123/toolu_arr.md']).toBe(JSON.stringify(content));
    expect(blocksOf(result.message)[0]!.content).toBe(referenceTo('session-abc123/toolu_arr.md'));
    // the image's base64 data is not counted as characters of the result
    expect(result.freedChars).toBe(
      JSON.stringify(content).length - 'AA'.length - String(blocksOf(result.message)[0]!.content).length,
    );
  });

  it('rejects a failed write with WRITE_FAILED, the original error as cause, the message unchanged', async () => {
    const cause = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const message = deepFreeze(userMessage(toolResult('t', text(2000))));
    const snapshot = structuredClone(message);
    const error: unknown = await offloadToolResultWithWriter(
      message,
      SESSION,
      '.offload',
      createFailingWriter(cause),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WriteFailedError);
    expect(error).toMatchObject({
      code: 'WRITE_FAILED',
      cause,
      message: expect.stringContaining('EACCES: permission denied'),
    });
    expect(message).toEqual(snapshot);
  });
});

describe('offloadToolResult: counts, names and copies', () => {
  it('freedChars is the original count minus the reference length', async () => {
    const { result } = await offload(userMessage(toolResult('t', text(5000))));
    expect(result.freedChars).toBe(5000 - referenceTo('session-abc123/t.md').length);
  });

  it('does no threshold check: a tiny content is offloaded and freedChars goes negative', async () => {
    const { result, stored } = await offload(userMessage(toolResult('t', 'ok')));
    expect(stored['session-abc123/t.md']).toBe('ok');
    expect(result.freedChars).toBe(2 - referenceTo('session-abc123/t.md').length);
    expect(result.freedChars).toBeLessThan(0);
  });

  it('keeps sessions apart: the same id in another session is another key', async () => {
    const store = createMemoryStore();
    await offloadToolResult(userMessage(toolResult('toolu_xyz', 'first')), { store, sessionId: 'one' });
    await offloadToolResult(userMessage(toolResult('toolu_xyz', 'second')), { store, sessionId: 'two' });
    expect(await readStore(store)).toEqual({ 'one/toolu_xyz.md': 'first', 'two/toolu_xyz.md': 'second' });
  });

  it('overwrites the content when the same id comes again in the same session', async () => {
    const store = createMemoryStore();
    await offload(userMessage(toolResult('same', 'first')), {}, store);
    const { result, stored } = await offload(userMessage(toolResult('same', 'second')), {}, store);
    expect(result.file).toBe(locationOf('session-abc123/same.md'));
    expect(stored).toEqual({ 'session-abc123/same.md': 'second' });
  });

  it('returns a deep copy and leaves a deep-frozen input as it was', async () => {
    // a message with a field of its own: not a literal of type Message, which names role and content only
    const message = deepFreeze({
      role: 'user' as const,
      id: 'm1',
      content: [
        { type: 'text', text: 'Here:', citations: [{ n: 1 }] },
        toolResult('t', text(1000), { is_error: false }),
      ] as ContentBlock[],
    });
    const snapshot = structuredClone(message);
    const { result } = await offload(message);
    expect(message).toEqual(snapshot);
    expect(result.message).not.toBe(message);
    expect(blocksOf(result.message)[0]).toEqual(blocksOf(message)[0]);
    expect(blocksOf(result.message)[0]).not.toBe(blocksOf(message)[0]);
    expect(blocksOf(result.message)[0]!.citations).not.toBe(blocksOf(message)[0]!.citations);
    expect(result.message).toMatchObject({ id: 'm1', role: 'user' });
    expect(blocksOf(result.message)[1]).toEqual({
      type: 'tool_result',
      tool_use_id: 't',
      content: referenceTo('session-abc123/t.md'),
      is_error: false,
    });
  });
});

describe('offloadToolResult: several results, duplicates, references, bad input', () => {
  it('offloads every tool_result of a message with parallel tool calls; file is the first, files all', async () => {
    const message = userMessage(
      toolResult('call_1', text(1000, 'a')),
      { type: 'text', text: 'between' },
      toolResult('call_2', text(3000, 'b')),
    );
    const { result, stored } = await offload(message);
    expect(result.files).toEqual([locationOf('session-abc123/call_1.md'), locationOf('session-abc123/call_2.md')]);
    expect(result.file).toBe(locationOf('session-abc123/call_1.md'));
    expect(stored['session-abc123/call_2.md']).toBe(text(3000, 'b'));
    expect(blocksOf(result.message)[1]).toEqual({ type: 'text', text: 'between' });
    expect(result.freedChars).toBe(4000 - 2 * referenceTo('session-abc123/call_1.md').length);
  });

  it('gives the second use of one id in the same message <id>~1.md, a name no real id has, so no content is lost', async () => {
    const { result, stored } = await offload(
      userMessage(toolResult('d', 'one'), toolResult('d', 'two'), toolResult('d-1', 'three')),
    );
    expect(result.files).toEqual(['d.md', 'd~1.md', 'd-1.md'].map((name) => locationOf(`session-abc123/${name}`)));
    expect(stored).toEqual({
      'session-abc123/d.md': 'one',
      'session-abc123/d~1.md': 'two',
      'session-abc123/d-1.md': 'three',
    });
  });

  it("keeps a duplicate's content when a later message brings a real id that looks like its name", async () => {
    const store = createMemoryStore();
    await offload(userMessage(toolResult('d', 'one'), toolResult('d', 'two')), {}, store);
    const { stored } = await offload(userMessage(toolResult('d-1', 'three'), toolResult('d~1', 'four')), {}, store);
    expect(stored['session-abc123/d~1.md']).toBe('two');
    expect(Object.values(stored)).toContain('four');
  });

  it('leaves existing references of either mode as they are', async () => {
    const batchReference = '[Content offloaded to: ./tool-result-old.md]';
    const { result } = await offload(userMessage(toolResult('old', batchReference), toolResult('new', text(1000))));
    expect(blocksOf(result.message)[0]!.content).toBe(batchReference);
    expect(result.files).toEqual([locationOf('session-abc123/new.md')]);
  });

  it('returns the message itself with freedChars 0, file null, files [] when every tool_result already is a reference', async () => {
    const message = userMessage(toolResult('old', '[Tool result offloaded to file: /x/old.md]'));
    const { result, stored } = await offload(message);
    expect(result).toEqual({ message, freedChars: 0, file: null, files: [] });
    expect(result.message).toBe(message);
    expect(stored).toEqual({});
  });

  it.each<[string, Message]>([
    ['string content', { role: 'user', content: 'just text' }],
    ['blocks without tool_result', userMessage({ type: 'text', text: 'hi' })],
    ['an empty block list', userMessage()],
  ])('rejects a message with %s with NO_TOOL_RESULT, storing nothing', async (_label, message) => {
    const store = createMemoryStore();
    await expect(offloadToolResult(message, { store, sessionId: SESSION })).rejects.toMatchObject({
      code: 'NO_TOOL_RESULT',
      name: 'NoToolResultError',
      message: expect.stringContaining('tool_result'),
    });
    expect(await readStore(store)).toEqual({});
  });

  it.each(['../up', 'a/b', '', '.', '..', 'has space', 'x'.repeat(201)])(
    'rejects the sessionId %j with UNSAFE_PATH before storing anything',
    async (sessionId) => {
      const store = createMemoryStore();
      await expect(
        offloadToolResult(userMessage(toolResult('t', text(1000))), { store, sessionId }),
      ).rejects.toMatchObject({
        code: 'UNSAFE_PATH',
        message: expect.stringContaining('sessionId'),
      });
      expect(await readStore(store)).toEqual({});
    },
  );

  it('maps an unsafe tool_use_id to a safe key in the session instead of failing the message', async () => {
    const { result, stored } = await offload(
      userMessage(toolResult('fine', text(1000)), toolResult('../../etc/passwd', text(1001))),
    );
    expect(result.files[0]).toBe(locationOf('session-abc123/fine.md'));
    const key = result.files[1]!.slice(locationOf('').length);
    expect(key).toMatch(/^session-abc123\/etcpasswd~[0-9a-z]{11}\.md$/);
    expect(stored[key]).toBe(text(1001));
  });

  it('rejects a malformed message with INVALID_MESSAGE and the path of the bad field', async () => {
    const message = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 12, content: 'x' }] };
    await expect(
      offloadToolResult(message as never, { store: createMemoryStore(), sessionId: SESSION }),
    ).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
      path: 'message.content[0].tool_use_id',
    });
  });

  it('rejects an empty outputDir and a writer without its methods with INVALID_OPTION', async () => {
    const message = userMessage(toolResult('t', text(1000)));
    const unreachable = createFailingWriter(new Error('writer reached'));
    await expect(offloadToolResultWithWriter(message, SESSION, '', unreachable)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    await expect(offloadToolResultWithWriter(message, SESSION, '.offload', {} as never)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
  });

  it('follows the reference with a preview when asked, and counts it in freedChars', async () => {
    const { result } = await offload(userMessage(toolResult('t', `START${text(1000, '.')}END`)), {
      preview: { headChars: 5, tailChars: 3 },
    });
    const reference = blocksOf(result.message)[0]!.content as string;
    expect(reference).toBe(
      `${referenceTo('session-abc123/t.md')}\nPreview (first 5 and last 3 of 1008 chars):\nSTART\n[... 1000 chars omitted ...]\nEND`,
    );
    expect(result.freedChars).toBe(1008 - reference.length);
  });
});

describe('createToolResultOffloader: the direct offload middleware', () => {
  it('offloads a block of 1000 chars and keeps one of 999 by default', async () => {
    const { store, offload: offloadMessage } = createOffloader();
    const result = await offloadMessage(userMessage(toolResult('big', text(1000)), toolResult('small', text(999))));
    expect(blocksOf(result)[0]!.content).toBe(referenceTo('session-abc123/big.md'));
    expect(blocksOf(result)[1]!.content).toBe(text(999));
    expect(await readStore(store)).toEqual({ 'session-abc123/big.md': text(1000) });
  });

  it.each<[string, Message]>([
    ['only small results', userMessage(toolResult('a', text(999)), toolResult('b', 'x'))],
    ['no tool_result', userMessage({ type: 'text', text: text(5000) })],
    ['string content', { role: 'user', content: text(5000) }],
    [
      'only references',
      userMessage(
        toolResult('a', buildDirectReference('/o/a.md') + buildPreview(text(2000), { headChars: 900, tailChars: 900 })),
      ),
    ],
  ])('returns the same message object, storing nothing, for %s', async (_label, message) => {
    const { store, offload: offloadMessage } = createOffloader();
    expect(await offloadMessage(message)).toBe(message);
    expect(await readStore(store)).toEqual({});
  });

  it('takes a custom threshold', async () => {
    const { offload: offloadMessage } = createOffloader({ threshold: 10 });
    const result = await offloadMessage(userMessage(toolResult('t', text(10))));
    expect(blocksOf(result)[0]!.content).toBe(referenceTo('session-abc123/t.md'));
  });

  it('keeps the results of excluded tools, named by the assistant message that made the calls', async () => {
    const { offload: offloadMessage } = createOffloader({ excludeTools: ['read_file'] });
    const calls = assistantMessage(toolUse('r', 'read_file'), toolUse('b', 'bash'));
    const result = await offloadMessage(userMessage(toolResult('r', text(2000)), toolResult('b', text(2000))), calls);
    expect(blocksOf(result)[0]!.content).toBe(text(2000));
    expect(blocksOf(result)[1]!.content).toBe(referenceTo('session-abc123/b.md'));
    const onlyExcluded = userMessage(toolResult('r', text(2000)));
    expect(await offloadMessage(onlyExcluded, calls)).toBe(onlyExcluded);
  });

  it('excludes nothing when no assistant message is given', async () => {
    const { offload: offloadMessage } = createOffloader({ excludeTools: ['read_file'] });
    const result = await offloadMessage(userMessage(toolResult('r', text(2000))));
    expect(blocksOf(result)[0]!.content).toBe(referenceTo('session-abc123/r.md'));
  });

  it('works on a deep-frozen message and leaves it unchanged', async () => {
    const message = deepFreeze(userMessage(toolResult('t', text(1500))));
    const snapshot = structuredClone(message);
    const result = await createOffloader().offload(message);
    expect(result).not.toBe(message);
    expect(message).toEqual(snapshot);
  });

  it.each([
    [{ sessionId: '../x', outputDir: '.offload' }, 'UNSAFE_PATH', /sessionId/],
    [{ sessionId: SESSION, outputDir: '' }, 'INVALID_OPTION', /outputDir must be a non-blank string/],
    [
      { sessionId: SESSION, outputDir: '.offload', threshold: 0 },
      'INVALID_OPTION',
      /threshold must be a number >= 1, got 0/,
    ],
    [
      { sessionId: SESSION, outputDir: '.offload', excludeTools: [1] },
      'INVALID_OPTION',
      /excludeTools must be an array of strings/,
    ],
    [
      { sessionId: SESSION, outputDir: '.offload', writer: { writeFile: 1 } },
      'INVALID_OPTION',
      /writer must be a FileWriter/,
    ],
  ])('rejects the options %j when created', (options, code, message) => {
    expect(() => createToolResultOffloader(options as never)).toThrow(message);
    expect(() => createToolResultOffloader(options as never)).toThrow(expect.objectContaining({ code }));
  });

  it('rejects a malformed message or assistant message with INVALID_MESSAGE', async () => {
    const { offload: offloadMessage } = createOffloader();
    await expect(offloadMessage({ role: 'tool', content: 'x' } as never)).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
      path: 'message.role',
    });
    await expect(
      offloadMessage(userMessage(toolResult('t', text(2000))), { role: 'assistant' } as never),
    ).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
      path: 'assistantMessage.content',
    });
  });

  it('rejects a failed write with WRITE_FAILED', async () => {
    const offloadMessage = createToolResultOffloader({
      sessionId: SESSION,
      outputDir: '.offload',
      writer: createFailingWriter(new Error('EROFS')),
    });
    await expect(offloadMessage(userMessage(toolResult('t', text(2000))))).rejects.toMatchObject({
      code: 'WRITE_FAILED',
    });
  });
});
