/**
 * `agent-context-offload/openai-agents` never loads the Agents SDK (integrations load their
 * framework lazily, or only its types): with `@openai/agents` made unloadable, the subpath
 * imports and its four pieces work on plain objects of the SDK's shapes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

function notInstalled(name: string): never {
  throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
}

vi.mock('@openai/agents', () => notInstalled('@openai/agents'));
vi.mock('@openai/agents-core', () => notInstalled('@openai/agents-core'));

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

async function createManager() {
  const outputDir = await mkdtemp(join(tmpdir(), 'aco-openai-agents-no-sdk-'));
  directories.push(outputDir);
  const { createContextManager } = await import('../../../src/api/context-manager.js');
  return createContextManager({
    format: 'openai-agents',
    outputDir,
    logger: { warn: () => undefined },
    offload: { directThreshold: 100, timing: 'on-arrival' },
  });
}

describe('without @openai/agents installed', () => {
  it('the subpath imports and the input filter offloads a large result', async () => {
    const { createCallModelInputFilter } = await import('../../../src/openai-agents.js');
    const filter = createCallModelInputFilter(await createManager());
    const input = [
      { type: 'message' as const, role: 'user' as const, content: 'Fetch it.' },
      {
        type: 'function_call' as const,
        callId: 'call_1',
        name: 'fetch',
        arguments: '{}',
        status: 'completed' as const,
      },
      {
        type: 'function_call_result' as const,
        callId: 'call_1',
        name: 'fetch',
        status: 'completed' as const,
        output: 'x'.repeat(500),
      },
    ];

    const filtered = await filter({
      modelData: { input, instructions: 'Be brief.' },
      agent: {} as never,
      context: undefined,
    });

    expect(filtered.input[2]).toMatchObject({
      type: 'function_call_result',
      output: expect.stringMatching(/^\[Tool result offloaded to file: /),
    });
    expect(filtered.instructions).toBe('Be brief.');
    expect(input[2]?.output).toBe('x'.repeat(500));
  });

  it('the tool wrapper, the read tool and the session wrapper are built without it', async () => {
    const { createCompactingSession, createReadTool, withOffload } = await import('../../../src/openai-agents.js');
    const manager = await createManager();
    const items: unknown[] = [];
    const session = {
      getSessionId: async () => 'session-1',
      getItems: async () => [...items],
      addItems: async (added: unknown[]) => void items.push(...added),
      popItem: async () => items.pop(),
      clearSession: async () => void (items.length = 0),
    };
    const fetch = {
      type: 'function',
      name: 'fetch',
      description: 'Fetches.',
      parameters: {},
      strict: false,
      invoke: async () => 'y'.repeat(500),
    } as never;

    const wrapped = withOffload(fetch, manager) as unknown as {
      invoke: (context: unknown, input: string, details: unknown) => Promise<unknown>;
    };
    const output = await wrapped.invoke({}, '{}', { toolCall: { callId: 'call_2' } });
    expect(output).toMatch(/^\[Tool result offloaded to file: /);
    expect(
      await createReadTool(manager)
        .invoke({} as never, JSON.stringify({ ref: output }))
        .then(String),
    ).toContain('yyyy');
    expect(await createCompactingSession(session as never, manager).runCompaction()).toBeNull();
  });
});
