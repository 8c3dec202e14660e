/**
 * An offline agent loop that keeps its context small with batch offload and compaction:
 * each turn, the simulated model calls a tool; large tool results are offloaded to files;
 * when the history reaches the compaction trigger, it is compacted into a summary plus the
 * files read most recently. No network: the summary comes from the extractive summarizer.
 *
 *   npx tsx examples/compact-agent-loop.ts
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compactMessages,
  countTokens,
  offloadToolResults,
  shouldCompact,
  type Message,
  type ToolUseBlock,
} from '../src/index.js';
import { createExtractiveSummarizer } from '../src/summarize.js';

/** A tiny window so that compaction fires within a few turns (offloading keeps the history small). */
const CONTEXT_TOKEN_LIMIT = 1200;
const COMPACT_THRESHOLD_RATIO = 0.8;
const TURN_COUNT = 36;

/** What the simulated model does each turn. */
const SCRIPT: Array<{ say: string; tool: 'read_file' | 'bash'; input: Record<string, string> }> = [
  { say: 'Let me look at the server entry point.', tool: 'read_file', input: { path: 'src/server.ts' } },
  { say: 'Now the router.', tool: 'read_file', input: { path: 'src/router.ts' } },
  { say: 'Running the tests to see what fails.', tool: 'bash', input: { command: 'npm test' } },
  { say: 'The handler for /users is wrong; reading it.', tool: 'read_file', input: { path: 'src/handlers/users.ts' } },
  { say: 'Checking the logs for the failing request.', tool: 'bash', input: { command: 'tail -n 200 logs/app.log' } },
  { say: 'Reading the database schema.', tool: 'read_file', input: { path: 'src/db/schema.ts' } },
  { say: 'Running the tests again after the fix.', tool: 'bash', input: { command: 'npm test' } },
  {
    say: 'Re-reading the users handler to double-check the fix.',
    tool: 'read_file',
    input: { path: 'src/handlers/users.ts' },
  },
  { say: 'Listing the project files.', tool: 'bash', input: { command: 'find . -name "*.ts"' } },
  { say: 'Reading the router once more.', tool: 'read_file', input: { path: 'src/router.ts' } },
];

async function createProject(workDir: string): Promise<void> {
  const files: Record<string, string> = {
    'src/server.ts':
      'import { createServer } from "node:http";\nimport { route } from "./router.js";\n\ncreateServer(route).listen(3000);\n',
    'src/router.ts': Array.from(
      { length: 30 },
      (_, index) => `if (url === "/route-${index}") return handle${index}(request);`,
    ).join('\n'),
    'src/handlers/users.ts':
      'export async function listUsers(db) {\n  return db.query("SELECT id, name FROM users ORDER BY id");\n}\n',
    'src/db/schema.ts': Array.from({ length: 40 }, (_, index) => `  column_${index} TEXT NOT NULL,`).join('\n'),
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(workDir, path, '..'), { recursive: true });
    await writeFile(join(workDir, path), content);
  }
}

/** Runs a simulated tool: reads real files, invents shell output. */
async function runTool(workDir: string, block: ToolUseBlock, turn: number): Promise<string> {
  if (block.name === 'read_file') return readFile(join(workDir, String(block.input.path)), 'utf8');
  const lines = Array.from(
    { length: 60 },
    (_, index) => `[turn ${turn}] ${String(block.input.command)}: line ${index} ok`,
  );
  return `${lines.join('\n')}\nexit code ${turn % 3 === 0 ? 1 : 0}`;
}

const workDir = await mkdtemp(join(tmpdir(), 'agent-loop-'));
try {
  await createProject(workDir);
  const summarizer = createExtractiveSummarizer();
  let messages: Message[] = [
    { role: 'system', content: 'You are a coding agent. Use read_file and bash to fix bugs.' },
    { role: 'user', content: 'The /users endpoint returns users in the wrong order. Please fix it.' },
  ];

  for (let turn = 0; turn < TURN_COUNT; turn += 1) {
    const step = SCRIPT[turn % SCRIPT.length] as (typeof SCRIPT)[number];
    const toolUse: ToolUseBlock = { type: 'tool_use', id: `toolu_${turn}`, name: step.tool, input: step.input };
    messages.push({ role: 'assistant', content: [{ type: 'text', text: step.say }, toolUse] });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: await runTool(workDir, toolUse, turn) }],
    });

    // 1. Offload large tool results: the history keeps a reference to each file.
    const offload = await offloadToolResults(messages, { outputDir: join(workDir, '.offload') });
    messages = offload.messages;

    // 2. Compact when the trigger fires.
    const tokens = countTokens(messages);
    let report = `turn ${String(turn + 1).padStart(2)}: ${String(messages.length).padStart(2)} messages, ${String(tokens).padStart(5)} tokens, offloaded ${offload.offloadedCount}`;
    const trigger = { contextTokenLimit: CONTEXT_TOKEN_LIMIT, compactThresholdRatio: COMPACT_THRESHOLD_RATIO };
    if (shouldCompact(messages, trigger)) {
      const result = await compactMessages(messages, {
        ...trigger,
        workDir,
        summarizer,
        // Budgets sized to the tiny window: a summary and restored files that fill it would
        // trigger compaction again on the next turn.
        summaryMaxWords: 150,
        maxRestoreFiles: 2,
        maxRestoreTokensPerFile: 300,
        resumeMessage: 'Continue with the task.',
        logger: { warn: (message) => console.warn(`  warning: ${message}`) },
      });
      if (result.compacted) {
        messages = result.messages;
        const { stats } = result;
        report +=
          `\n         compacted ${stats.compactedMessageCount} messages: ${stats.originalTokenCount} → ${stats.compactedTokenCount} tokens` +
          ` (ratio ${stats.compactionRatio.toFixed(2)}), restored ${stats.restoredFileCount} file(s) (${stats.restoredTokenCount} tokens)` +
          `\n         archive: ${result.originalMessagesPath}`;
      } else {
        report += `\n         not compacted: ${result.skippedReason}`;
      }
    }
    console.log(report);
  }
  console.log(`\nFinal history (${messages.length} messages, ${countTokens(messages)} tokens):`);
  for (const message of messages) {
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    console.log(`  ${message.role.padEnd(9)} ${text.split('\n')[0]?.slice(0, 100)}`);
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}
