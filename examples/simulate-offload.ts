/**
 * A simulated multi-turn agent conversation whose large tool results are offloaded to files
 * (the package's demo). Run it with `npx tsx examples/simulate-offload.ts` or `npm run demo`.
 *
 * 1. Builds a conversation with 4 tool calls: 3 large files and 1 short error.
 * 2. Shows the context size before offloading.
 * 3. Runs `offloadToolResults()`, writing into `.offload-demo/`.
 * 4. Compares the sizes before and after.
 * 5. Shows excerpts of the offloaded files.
 * 6. Checks that the original messages were not modified.
 * 7. Bonus: direct offload of the next tool result, as it arrives.
 */
import { readFile, rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { isToolResultBlock } from '../src/messages.js';
import {
  createToolResultOffloader,
  offloadToolResults,
  planOffload,
  type ContentBlock,
  type Message,
  type ToolResultBlock,
} from '../src/index.js';

const OUTPUT_DIR = '.offload-demo';

function printHeading(title: string): void {
  console.log(`\n== ${title} ==\n`);
}

function formatChars(count: number): string {
  return `${count.toLocaleString('en-US')} chars`;
}

/** The context size as the ratio gate counts it: text, tool inputs, tool results. */
function measure(messages: readonly Message[]): number {
  return planOffload(messages, { ratioThreshold: 0 }).totalChars;
}

function buildPackageJson(): string {
  const dependencies = Object.fromEntries(
    ['express', 'zod', 'pino', 'undici', 'dotenv', 'ioredis', 'pg', 'kysely', 'jose', 'nanoid'].map((name, index) => [
      name,
      `^${index + 1}.${index * 3}.0`,
    ]),
  );
  const scripts = {
    build: 'tsc -p tsconfig.build.json',
    test: 'vitest run',
    lint: 'eslint .',
    start: 'node dist/server.js',
    dev: 'tsx watch src/server.ts',
  };
  return JSON.stringify(
    { name: 'orders-service', version: '2.4.1', type: 'module', scripts, dependencies, engines: { node: '>=18' } },
    null,
    2,
  );
}

function buildSourceFile(): string {
  const handlers = ['listOrders', 'getOrder', 'createOrder', 'updateOrder', 'cancelOrder', 'refundOrder'].map(
    (name) => `export async function ${name}(request: Request, context: Context): Promise<Response> {
  const user = await context.auth.requireUser(request);
  const input = await parseInput(request, schemas.${name});
  context.logger.info({ user: user.id, action: '${name}' }, 'handling request');
  const result = await context.orders.${name}(user, input);
  return Response.json(result, { status: 200 });
}
`,
  );
  return `import { parseInput } from './http.js';\nimport * as schemas from './schemas.js';\nimport type { Context } from './context.js';\n\n${handlers.join('\n')}`;
}

function buildLog(): string {
  const lines: string[] = [];
  for (let index = 0; index < 40; index++) {
    const second = String(index % 60).padStart(2, '0');
    const level = index % 13 === 7 ? 'WARN' : 'INFO';
    lines.push(
      `2026-02-17T10:15:${second}.${String((index * 37) % 1000).padStart(3, '0')}Z ${level} orders-service request id=req_${1000 + index} path=/orders/${index} status=200 duration_ms=${12 + ((index * 7) % 90)}`,
    );
  }
  return lines.join('\n');
}

function buildConversation(): Message[] {
  return [
    {
      role: 'user',
      content:
        'The orders service is slow. Look at the config, the handlers and the latest log, then check the missing test file.',
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'I will start with the package configuration.' },
        { type: 'tool_use', id: 'toolu_01_config', name: 'read_file', input: { path: 'package.json' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01_config', content: buildPackageJson() }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Now the request handlers.' },
        { type: 'tool_use', id: 'toolu_02_handlers', name: 'read_file', input: { path: 'src/handlers/orders.ts' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_02_handlers', content: buildSourceFile() }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me read the latest service log.' },
        { type: 'tool_use', id: 'toolu_03_log', name: 'read_file', input: { path: 'logs/orders-service.log' } },
      ],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_03_log', content: [{ type: 'text', text: buildLog() }] }],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Finally, the test file you mentioned.' },
        { type: 'tool_use', id: 'toolu_04_test', name: 'read_file', input: { path: 'tests/orders.test.ts' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_04_test',
          content: "Error: ENOENT: no such file or directory, open 'tests/orders.test.ts'",
          is_error: true,
        },
      ],
    },
  ];
}

function describeResult(block: ToolResultBlock): string {
  const content = block.content;
  const size = typeof content === 'string' ? content.length : JSON.stringify(content).length;
  const firstLine = typeof content === 'string' ? content.split('\n')[0]! : '(array of blocks)';
  return `${String(block.tool_use_id).padEnd(18)} ${formatChars(size).padStart(12)}  ${firstLine.slice(0, 70)}`;
}

function listToolResults(messages: readonly Message[]): void {
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) if (isToolResultBlock(block)) console.log(`  ${describeResult(block)}`);
  }
}

async function main(): Promise<void> {
  // A fresh directory each run, so the figures below are this run's own.
  await rm(OUTPUT_DIR, { recursive: true, force: true });

  printHeading('Step 1 — A conversation with 4 tool calls (3 large files, 1 short error)');
  const messages = buildConversation();
  const snapshot = structuredClone(messages);
  console.log(`  Messages: ${messages.length}`);
  listToolResults(messages);

  printHeading('Step 2 — Context before offloading');
  const before = measure(messages);
  const plan = planOffload(messages);
  console.log(`  Total content size: ${formatChars(before)}`);
  console.log(
    `  Offloadable (tool results >= ${plan.charThreshold} chars): ${formatChars(plan.offloadableChars)} (${(plan.ratio * 100).toFixed(1)}%)`,
  );
  console.log(
    `  Ratio gate (>= ${plan.ratioThreshold * 100}%): ${plan.skippedReason === null ? 'passes' : `skips (${plan.skippedReason})`}`,
  );

  printHeading(`Step 3 — Offload results (into ${OUTPUT_DIR}/)`);
  const result = await offloadToolResults(messages, { outputDir: OUTPUT_DIR });
  console.log(`  Offloaded count: ${result.offloadedCount}`);
  console.log(`  Freed chars: ${formatChars(result.freedChars)}`);
  console.log(`  Files written: ${result.files.length}`);
  for (const file of result.files) console.log(`    ${relative(process.cwd(), file)}`);

  printHeading('Step 4 — Conversation after offloading');
  const after = measure(result.messages);
  console.log(`  Total content size: ${formatChars(after)}`);
  console.log(`  Space saved: ${formatChars(before - after)} (${(((before - after) / before) * 100).toFixed(1)}%)`);
  listToolResults(result.messages);

  printHeading('Step 5 — What the offloaded files hold');
  for (const file of result.files) {
    const content = await readFile(file, 'utf8');
    const excerpt = content
      .split('\n')
      .slice(0, 3)
      .map((line) => `    | ${line.slice(0, 90)}`);
    const note = content.startsWith('[{') ? ', array content written as JSON' : '';
    console.log(`  ${relative(process.cwd(), file)} (${formatChars(content.length)}${note}):`);
    console.log(excerpt.join('\n'));
    console.log('    | ...');
  }

  printHeading('Step 6 — Immutability check');
  const unchanged = isDeepStrictEqual(messages, snapshot);
  const keptByReference = result.messages.filter((message, index) => message === messages[index]).length;
  console.log(`  Original messages unchanged: ${unchanged ? 'yes' : 'NO'}`);
  console.log(`  Untouched messages kept by reference: ${keptByReference} of ${messages.length}`);
  console.log(`  Changed messages are new objects: ${result.messages.length - keptByReference}`);
  const second = await offloadToolResults(result.messages, { outputDir: OUTPUT_DIR });
  console.log(
    `  Offloading the new history again: ${second.offloadedCount} offloaded (references are never offloaded twice)`,
  );
  if (!unchanged) process.exitCode = 1;

  printHeading('Step 7 — Bonus: the middleware offloads the next result before the LLM sees it');
  const offloadLargeResults = createToolResultOffloader({ sessionId: 'demo-session', outputDir: OUTPUT_DIR });
  const call: Message = {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_05_grep', name: 'grep', input: { pattern: 'duration_ms' } }],
  };
  const grepOutput = buildLog()
    .split('\n')
    .map((line) => `logs/orders-service.log:${line}`)
    .join('\n');
  const toolMessage: Message = {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_05_grep', content: grepOutput }],
  };
  const sent = await offloadLargeResults(toolMessage, call);
  const sentBlock = (sent.content as ContentBlock[])[0];
  console.log(`  Tool output: ${formatChars(grepOutput.length)} (threshold 1,000)`);
  console.log(
    `  Sent to the LLM instead: ${isToolResultBlock(sentBlock) ? String(sentBlock.content) : '(no tool result)'}`,
  );
  console.log(`\nDone. Files are in ${OUTPUT_DIR}/ (mode 0600).`);
}

await main();
