/**
 * End to end through each format: a history in the format goes to
 * the canonical form, through offloadToolResults with a real temp directory, and back. The large
 * tool output comes back as that format's tool output holding the reference text; every other
 * message is the caller's own object.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolMessage } from '@langchain/core/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offloadToolResults } from '../../../src/api/offload.js';
import type { MessageFormat } from '../../../src/core/format.js';
import { formats } from '../../../src/formats/index.js';
import {
  aiSdkHistory,
  aiSdkV6History,
  anthropicHistory,
  createLangchainHistory,
  LARGE_OUTPUT,
  openaiAgentsHistory,
  openaiChatHistory,
  openaiResponsesHistory,
} from './sdk-samples.js';

let outputDir: string;

beforeEach(async () => {
  outputDir = await mkdtemp(join(tmpdir(), 'aco-formats-'));
});

afterEach(async () => {
  await rm(outputDir, { recursive: true, force: true });
});

const REFERENCE = /^\[Content offloaded to: \.\/tool-result-call_1\.md\]$/;

/** Offloads `history` through `format`; checks every message but `changedIndex` is the caller's own. */
async function offloadThrough<M>(
  format: MessageFormat<M>,
  history: readonly M[],
  changedIndex: number,
  callId = 'call_1',
): Promise<{ back: M[]; written: string }> {
  const before = JSON.stringify(history);
  const canonical = format.toCanonical(history);
  const result = await offloadToolResults(canonical, { outputDir, charThreshold: 1_000, ratioThreshold: 0 });
  expect(result.offloadedCount).toBe(1);
  const back = format.fromCanonical(result.messages, history);
  expect(back).toHaveLength(history.length);
  back.forEach((message, index) => {
    if (index === changedIndex) expect(message).not.toBe(history[index]);
    else expect(message).toBe(history[index]);
  });
  expect(JSON.stringify(history)).toBe(before);
  const written = await readFile(join(outputDir, `tool-result-${callId}.md`), 'utf8');
  return { back, written };
}

describe('offloading through each format', () => {
  it('anthropic: the tool_result content becomes the reference', async () => {
    const { back, written } = await offloadThrough(formats.anthropic, anthropicHistory, 2, 'toolu_1');
    expect(back[2]).toEqual({
      ...anthropicHistory[2],
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: expect.stringMatching(/^\[Content offloaded to: \.\/tool-result-toolu_1\.md\]$/),
        },
        ...(anthropicHistory[2]!.content as unknown[]).slice(1),
      ],
    });
    expect(written).toBe(LARGE_OUTPUT);
  });

  it('openai-chat: the tool message content becomes the reference, tool_call_id kept', async () => {
    const { back, written } = await offloadThrough(formats.openaiChat, openaiChatHistory, 4);
    expect(back[4]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: expect.stringMatching(REFERENCE) });
    expect(written).toBe(LARGE_OUTPUT);
  });

  it('openai-responses: the function_call_output output becomes the reference', async () => {
    const { back, written } = await offloadThrough(formats.openaiResponses, openaiResponsesHistory, 5);
    expect(back[5]).toEqual({
      type: 'function_call_output',
      call_id: 'call_1',
      output: expect.stringMatching(REFERENCE),
    });
    expect(written).toBe(LARGE_OUTPUT);
  });

  it('openai-agents: the function_call_result output becomes the reference, name and status kept', async () => {
    const { back, written } = await offloadThrough(formats.openaiAgents, openaiAgentsHistory, 5);
    expect(back[5]).toEqual({
      type: 'function_call_result',
      callId: 'call_1',
      name: 'read_file',
      status: 'completed',
      output: expect.stringMatching(REFERENCE),
    });
    expect(written).toBe(LARGE_OUTPUT);
  });

  it('ai-sdk (ai 7): the tool-result output becomes { type: "text", value: reference }, the other parts the caller\'s own', async () => {
    const { back, written } = await offloadThrough(formats.aiSdk, aiSdkHistory, 3);
    const original = aiSdkHistory[3]!.content as unknown[];
    const parts = back[3]!.content as unknown[];
    expect(parts[0]).toEqual({
      type: 'tool-result',
      toolCallId: 'call_1',
      toolName: 'readFile',
      output: { type: 'text', value: expect.stringMatching(REFERENCE) },
    });
    parts.slice(1).forEach((part, index) => expect(part).toBe(original[index + 1]));
    expect(written).toBe(LARGE_OUTPUT);
  });

  it('ai-sdk (ai 6): an error-json output becomes error-text holding the reference', async () => {
    const { back, written } = await offloadThrough(formats.aiSdk, aiSdkV6History, 3);
    const parts = back[3]!.content as unknown[];
    expect(parts[0]).toEqual({
      type: 'tool-result',
      toolCallId: 'call_1',
      toolName: 'readFile',
      output: { type: 'error-text', value: expect.stringMatching(REFERENCE) },
    });
    expect(written).toBe(JSON.stringify({ error: LARGE_OUTPUT }));
  });

  it('langchain: the ToolMessage comes back as a ToolMessage holding the reference, every other field kept', async () => {
    const history = createLangchainHistory();
    const { back, written } = await offloadThrough(formats.langchain, history, 3);
    const rebuilt = back[3];
    expect(rebuilt).toBeInstanceOf(ToolMessage);
    const original = history[3] as ToolMessage;
    expect(rebuilt).toMatchObject({
      content: expect.stringMatching(REFERENCE),
      tool_call_id: 'call_1',
      name: 'read_file',
      artifact: original.artifact,
      id: original.id,
    });
    expect(written).toBe(LARGE_OUTPUT);
  });
});
