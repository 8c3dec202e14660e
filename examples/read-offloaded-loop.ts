/**
 * An offline agent loop in which the model reads back a tool result that was offloaded out of
 * its context. A tool returns a 5,000-line log; batch offload replaces it in the history with
 * `[Content offloaded to: ./tool-result-toolu_1.md]`; the model then calls `read_offloaded`
 * for a page of it (offset/limit), for the lines matching a pattern, and for the next page of
 * matches, following the footer of the previous answer. The "model" is a script: no network.
 *
 *   npx tsx examples/read-offloaded-loop.ts                                    # the file store, in a temp dir
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx examples/read-offloaded-loop.ts   # the same loop on Redis
 *
 * With Redis, the references read `redis://example/<run>/tool-result-toolu_1.md` and the same
 * read tool pages through them; the run's keys are deleted at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadOffloadedTool, type ReadOffloadedInput } from '../src/api/read-offloaded-tool.js';
import { offloadToolResults, type ContentBlock, type Message, type ToolUseBlock } from '../src/index.js';
import { isTextBlock } from '../src/messages.js';
import type { ContentStore } from '../src/core/ports.js';
import { createFileStore } from '../src/stores/file-store.js';
import { createRedisStore } from '../src/stores/redis-store.js';

/** A tool of the agent: returns a large deployment log, a few errors in it. */
function fetchLogs(): string {
  return Array.from({ length: 5000 }, (_, index) => {
    const line = index + 1;
    if (line % 1250 === 0)
      return `2026-03-01T10:${String(line % 60).padStart(2, '0')}:00Z ERROR payment-service: upstream timeout after 30000 ms (request ${line})`;
    return `2026-03-01T10:${String(line % 60).padStart(2, '0')}:00Z INFO  payment-service: request ${line} handled in ${(line * 7) % 90} ms`;
  }).join('\n');
}

/** The text of the last tool result in the history: what the scripted model "reads". */
function lastToolResult(messages: readonly Message[]): string {
  const blocks = messages[messages.length - 1]!.content as ContentBlock[];
  const result = blocks.find((block) => block.type === 'tool_result') as { content: string };
  return result.content;
}

/**
 * The scripted model: one step per turn, deciding from what it sees in the history, as a real
 * model would (it finds the reference in the offloaded result, and the next offset in a footer).
 */
function scriptedModel(messages: readonly Message[], turn: number): ContentBlock[] {
  const call = (input: Record<string, unknown>, name = 'read_offloaded'): ToolUseBlock => ({
    type: 'tool_use',
    id: `toolu_${turn}`,
    name,
    input,
  });
  switch (turn) {
    case 1:
      return [
        { type: 'text', text: 'Let me fetch the deployment logs.' },
        call({ service: 'payment-service' }, 'fetch_logs'),
      ];
    case 2: {
      const reference = lastToolResult(messages); // "[Content offloaded to: ./tool-result-toolu_1.md]"
      return [
        { type: 'text', text: 'The log was offloaded; reading lines 1248-1252.' },
        call({ ref: reference, offset: 1248, limit: 5 }),
      ];
    }
    case 3: {
      const reference = lastToolResult(messages.slice(0, 3)); // the offloaded log, two turns back
      return [
        { type: 'text', text: 'Searching the whole log for errors.' },
        call({ ref: reference, pattern: 'ERROR', limit: 2 }),
      ];
    }
    case 4: {
      // the footer of the last answer says how to go on: {"ref":...,"pattern":...,"offset":N}
      const footer = lastToolResult(messages).split('\n').pop()!;
      const next = JSON.parse(/\{.*\}/.exec(footer)![0]) as ReadOffloadedInput;
      return [{ type: 'text', text: 'More errors may follow; searching on.' }, call({ ...next })];
    }
    default:
      return [
        {
          type: 'text',
          text: 'Four upstream timeouts (lines 1250, 2500, 3750, 5000): the payment provider is slow; raising its timeout.',
        },
      ];
  }
}

const directory = await mkdtemp(join(tmpdir(), 'read-offloaded-loop-'));
const redisUrl = process.env.REDIS_URL;
const redis =
  redisUrl === undefined ? undefined : createRedisStore({ url: redisUrl, prefix: `example/run-${Date.now()}` });
const store: ContentStore = redis ?? createFileStore({ dir: directory });
try {
  const readTool = createReadOffloadedTool({ store });
  // What a real loop sends the model with each request (unused by the scripted model).
  const toolDefinitions = [
    readTool.anthropic,
    { name: 'fetch_logs', description: 'Fetches a service log.', input_schema: { type: 'object', properties: {} } },
  ];
  const where = redis === undefined ? directory : `redis://${redis.prefix}/ on ${redisUrl}`;
  console.log(
    `tools offered: ${toolDefinitions.map((tool) => tool.name).join(', ')}; offloaded content goes to ${where}\n`,
  );

  let messages: Message[] = [{ role: 'user', content: 'Why did the payment deployment fail this morning?' }];
  for (let turn = 1; ; turn += 1) {
    const content = scriptedModel(messages, turn);
    messages.push({ role: 'assistant', content });
    for (const block of content) if (isTextBlock(block)) console.log(`model (turn ${turn}): ${block.text}`);
    const toolUse = content.find((block): block is ToolUseBlock => block.type === 'tool_use');
    if (toolUse === undefined) break;

    console.log(`  calls ${toolUse.name} ${JSON.stringify(toolUse.input)}`);
    const output = toolUse.name === readTool.name ? await readTool.execute(toolUse.input) : fetchLogs();
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: output }] });

    // Offload before the next model call. The read tool's own answers are never offloaded:
    // they would only be replaced by another reference to read.
    const before = JSON.stringify(messages).length;
    const offload = await offloadToolResults(messages, { store, excludeTools: [readTool.name] });
    messages = offload.messages;
    if (offload.offloadedCount > 0)
      console.log(
        `  offloaded ${offload.offloadedCount} result: history ${before.toLocaleString('en-US')} → ${JSON.stringify(messages).length.toLocaleString('en-US')} chars`,
      );

    const received = lastToolResult(messages);
    const lines = received.split('\n');
    const shown =
      lines.length > 14
        ? [...lines.slice(0, 12), `  ... (${lines.length - 13} more lines)`, lines[lines.length - 1]!]
        : lines;
    console.log(
      `  the model receives (${received.length.toLocaleString('en-US')} chars):\n${shown.map((line) => `  | ${line}`).join('\n')}\n`,
    );
  }
} finally {
  await rm(directory, { recursive: true, force: true });
  if (redis !== undefined) {
    for await (const key of redis.list('')) await redis.delete(key);
    await redis.close();
  }
}
