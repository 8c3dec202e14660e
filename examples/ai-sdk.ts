/**
 * Vercel AI SDK: offload and compaction in a `generateText` loop, through `offloadTools` (each
 * tool's `toModelOutput`), `createPrepareStep` (`prepareStep`) and the read tool.
 *
 * Runs offline: the model is the AI SDK's own `MockLanguageModelV4` (from `ai/test`), scripted
 * to do what a real model would: it fetches a 40 KB log (too large for the small window: cut to
 * its reference, head and tail before it sees it), reads
 * part of it back with the reference it was shown, lists files until the history goes over a
 * small window (compacted before the next call), then answers. Everything is written to a
 * temporary directory, removed at the end.
 *
 * Run after `npm run build`: `npx tsx examples/ai-sdk.ts`
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createContextManager } from 'agent-context-offload';
import { createPrepareStep, createReadTool, offloadTools } from 'agent-context-offload/ai-sdk';

/** A provider prompt part, read loosely: what the mock model was sent. */
type PromptPart = { type: string; text?: string; toolName?: string; output?: { value?: unknown } };
type PromptMessage = { role: string; content: string | PromptPart[] };

/** The value of the last tool result from `toolName` in a prompt. */
function lastToolResult(prompt: readonly PromptMessage[], toolName: string): string {
  const parts = prompt.flatMap((message) => (typeof message.content === 'string' ? [] : message.content));
  const result = parts.filter((part) => part.type === 'tool-result' && part.toolName === toolName).at(-1);
  return String(result?.output?.value);
}

const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};
const callTool = (toolCallId: string, toolName: string, input: object) => ({
  content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});

// The scripted model: each answer is decided from the prompt it was sent, as a real model would.
let call = 0;
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const messages = prompt as PromptMessage[];
    call += 1;
    console.log(
      `\n--- model call ${call}: ${messages.length} messages, ${JSON.stringify(prompt).length.toLocaleString('en-US')} characters`,
    );
    switch (call) {
      case 1:
        return callTool('call_1', 'fetch_log', { service: 'payments' });
      case 2: {
        const reference = lastToolResult(messages, 'fetch_log');
        console.log(`it sees the log as: ${reference}`);
        return callTool('call_2', 'read_offloaded', { ref: reference, pattern: 'ERROR' });
      }
      case 3:
        console.log(`it reads the errors back:\n${lastToolResult(messages, 'read_offloaded')}`);
        return callTool('call_3', 'list_files', { directory: 'src' });
      case 4: {
        const summary = messages.flatMap((message) =>
          typeof message.content === 'string' ? [message.content] : message.content.map((part) => part.text ?? ''),
        );
        const head = summary.find((text) => text.startsWith('[Conversation compressed]')) ?? '(no summary)';
        console.log(
          `the history went over the window and was compacted; it now starts with:\n${head.slice(0, 400)}...`,
        );
        return {
          content: [{ type: 'text' as const, text: 'Three upstream timeouts in payments (requests 8, 258 and 508).' }],
          finishReason: { unified: 'stop' as const, raw: undefined },
          usage,
          warnings: [],
        };
      }
      default:
        throw new Error('the script has no more answers');
    }
  },
});

const input = jsonSchema<{ service?: string; directory?: string }>({
  type: 'object',
  properties: { service: { type: 'string' }, directory: { type: 'string' } },
});
const myTools = {
  fetch_log: tool({
    description: 'Fetches the request log of a service.',
    inputSchema: input,
    execute: async () =>
      Array.from(
        { length: 600 },
        (_, index) =>
          `2026-03-01T10:${String(index % 60).padStart(2, '0')}:00Z ${index % 250 === 7 ? 'ERROR upstream timeout after 30000 ms' : 'INFO  request handled in 12 ms'} (request ${index + 1})`,
      ).join('\n'),
  }),
  list_files: tool({
    description: 'Lists the files of a directory.',
    inputSchema: input,
    execute: async () =>
      Array.from({ length: 300 }, (_, index) => `src/payments/module-${index}/handler-${index}.ts`).join('\n'),
  }),
};

const outputDir = await mkdtemp(join(tmpdir(), 'aco-ai-sdk-example-'));
try {
  // The few lines a user adds: a manager per conversation, and three hooks.
  const manager = createContextManager({
    format: 'ai-sdk', // the history is the AI SDK's ModelMessage[]
    outputDir, // where offloaded results and compaction archives go
    contextTokenLimit: 4_000, // a tiny window, so that this short run gets compacted
    offload: {
      directThreshold: 4_000, // older results of 4,000+ characters go to the store as they age (a new one over half the window is cut)
      excludeTools: ['list_files'], // keep this tool's output inline (so that the window fills up)
    },
  });
  const result = await generateText({
    model,
    messages: [{ role: 'user', content: 'Why do payments fail this morning?' }],
    tools: offloadTools({ ...myTools, read_offloaded: createReadTool(manager) }, manager),
    prepareStep: createPrepareStep(manager),
    stopWhen: stepCountIs(6),
  });

  console.log(`\n--- answer: ${result.text}`);
  const stored = JSON.stringify(result.responseMessages).length;
  const raw = String(result.steps[0]?.toolResults[0]?.output).length;
  console.log(
    `responseMessages keep ${stored.toLocaleString('en-US')} characters; steps[0].toolResults keeps the raw ${raw.toLocaleString('en-US')}-character log for the UI`,
  );
} finally {
  await rm(outputDir, { recursive: true, force: true });
}
