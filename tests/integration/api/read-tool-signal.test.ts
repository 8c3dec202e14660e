/**
 * The integrations' read tools pass the framework's per-call signal on: a read whose store never
 * answers ends when the call is aborted (the AI SDK's `abortSignal`, the Agents SDK runner's
 * `details.signal`, LangChain's `config.signal`), with a message for the model.
 */
import type { tool as langchainTool } from '@langchain/core/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import type { ContentStore } from '../../../src/core/ports.js';
import { createReadTool as createAiSdkReadTool } from '../../../src/ai-sdk.js';
import { buildLangchainReadTool } from '../../../src/integrations/langchain/read-tool.js';
import { createReadTool as createAgentsReadTool } from '../../../src/openai-agents.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';

/** A memory store whose reads never answer once `hang` is set. */
function createHangingStore(): ContentStore & { hang: boolean } {
  const inner = createMemoryStore();
  const never = new Promise<never>(() => undefined);
  const store = {
    ...inner,
    kind: inner.kind,
    hang: false,
    get: (key: string, range?: { offset?: number; length?: number }) => (store.hang ? never : inner.get(key, range)),
    exists: (key: string) => (store.hang ? never : (inner.exists?.(key) ?? Promise.resolve(false))),
  };
  return store;
}

const REFERENCE_KEY = 'default/a-0123456789abcdef.md';
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A store holding one content whose reads hang from now on, and that content's reference. */
async function prepareHangingStore(): Promise<{ store: ContentStore; ref: string }> {
  const store = createHangingStore();
  await store.put(REFERENCE_KEY, 'the stored content');
  store.hang = true;
  return { store, ref: store.referenceFor(REFERENCE_KEY) };
}

/** A controller aborted with `reason` 10 ms (of fake time) from now. */
function abortSoon(reason: string): AbortController {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error(reason)), 10);
  return controller;
}

/** What `read` answers once the 10 ms have passed. */
async function answerAfterAbort(read: Promise<string> | undefined): Promise<string | undefined> {
  await vi.advanceTimersByTimeAsync(10);
  return read;
}

describe('the read tools of the integrations, on a store that never answers', () => {
  it("AI SDK: the call's abortSignal ends the read", async () => {
    const { store, ref } = await prepareHangingStore();
    const readTool = createAiSdkReadTool(createContextManager({ store, format: 'ai-sdk' }));
    const answer = await answerAfterAbort(readTool.execute({ ref }, { abortSignal: abortSoon('step aborted').signal }));
    expect(answer).toBe(`Could not read ${JSON.stringify(ref)}: step aborted`);
  });

  it("OpenAI Agents SDK: the runner's details.signal ends the read", async () => {
    const { store, ref } = await prepareHangingStore();
    const readTool = createAgentsReadTool(createContextManager({ store, format: 'openai-agents' }));
    const answer = await answerAfterAbort(
      readTool.invoke({} as never, JSON.stringify({ ref }), {
        signal: abortSoon('run cancelled').signal,
      }) as Promise<string>,
    );
    expect(answer).toBe(`Could not read ${JSON.stringify(ref)}: run cancelled`);
  });

  it("LangChain: the config's signal ends the read", async () => {
    const { store, ref } = await prepareHangingStore();
    const { readTool } = createContextManager({ store });
    // the function handed to LangChain's tool(), called as LangChain calls it: with the run's config
    // (LangChain's own wrapper also stops waiting at the abort, but the read must end too)
    let run: ((input: unknown, config: unknown) => Promise<string>) | undefined;
    const captureTool = ((func: typeof run) => {
      run = func;
      return {};
    }) as unknown as typeof langchainTool;
    buildLangchainReadTool(readTool, () => readTool, captureTool);
    const answer = await answerAfterAbort(run?.({ ref }, { signal: abortSoon('graph interrupted').signal }));
    expect(answer).toBe(`Could not read ${JSON.stringify(ref)}: graph interrupted`);
  });
});
