/**
 * The context manager in an agent loop: one `prepare` call before every model request.
 *
 * Runs offline: the "model" is a script that reads files, greps a large log, and writes long
 * notes, so the history grows past a small window (8,000 tokens). The manager offloads the
 * large tool results (the 18 KB log) to a file store, hands the model a read tool to open them again, and
 * compacts when offloading is not enough, leaving the context at most half of the trigger. The
 * scripted provider reports usage the way Claude does (about a third more tokens than the local
 * count), so the manager's estimate calibrates itself. Everything is written to a temporary
 * directory, removed at the end.
 *
 * Run after `npm run build`: `npx tsx examples/context-manager.ts`
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  countTokens,
  createContextManager,
  type ContentBlock,
  type Message,
  type ToolUseBlock,
} from 'agent-context-offload';
import { createExtractiveSummarizer } from 'agent-context-offload/summarize';

/** What the scripted model does, turn by turn: a note and one tool call. */
const SCRIPT: Array<{ note: string; tool: string; input: Record<string, unknown> }> = [
  { note: 'Reading the server entry point.', tool: 'read_file', input: { path: 'src/server.ts' } },
  { note: 'The error log should say what fails.', tool: 'bash', input: { command: 'cat logs/error.log' } },
  { note: 'The log is offloaded; searching it for timeouts.', tool: 'read_offloaded', input: { pattern: 'timeout' } },
  { note: 'Reading the database client.', tool: 'read_file', input: { path: 'src/db.ts' } },
  { note: 'Running the tests.', tool: 'bash', input: { command: 'npm test' } },
  { note: 'Reading the retry helper.', tool: 'read_file', input: { path: 'src/retry.ts' } },
];

const workDir = await mkdtemp(join(tmpdir(), 'context-manager-example-'));
try {
  // A small project for the model to read.
  await mkdir(join(workDir, 'src'), { recursive: true });
  const source = (name: string, lines: number): string =>
    Array.from(
      { length: lines },
      (_, line) => `export function ${name}Step${line}(input: number): number { return input * ${line + 1}; }`,
    ).join('\n');
  await writeFile(join(workDir, 'src/server.ts'), source('server', 40));
  await writeFile(join(workDir, 'src/db.ts'), source('db', 60));
  await writeFile(join(workDir, 'src/retry.ts'), source('retry', 30));
  const errorLog = Array.from(
    { length: 400 },
    (_, line) =>
      `2026-03-01T10:${String(line % 60).padStart(2, '0')}:00Z ${line % 37 === 0 ? 'ERROR db timeout after 30000 ms' : 'INFO request ok'}`,
  ).join('\n');

  const manager = createContextManager({
    outputDir: join(workDir, '.context'),
    sessionId: 'example',
    model: 'claude-sonnet-4-6',
    contextTokenLimit: 8000,
    workDir,
    summarizer: createExtractiveSummarizer(),
    // source files (2-5 KB) stay inline for the model to read; the 18 KB log goes to the store
    offload: { directThreshold: 8000 },
    compaction: { resumeMessage: 'Continue with the task.' },
    logger: { warn: (message) => console.warn(`  warning: ${message}`) },
  });

  /** Runs one tool call as the agent's tools would. */
  async function runTool(call: ToolUseBlock, history: readonly Message[]): Promise<string> {
    if (call.name === 'read_file') return readFile(join(workDir, String(call.input.path)), 'utf8');
    if (call.name === 'read_offloaded') {
      // the reference the model saw: the first offloaded result in the history
      const ref = JSON.stringify(history).match(/\[Tool result offloaded to file: [^\]]+\]/)?.[0] ?? '';
      return manager.readTool.execute({ ref, pattern: String(call.input.pattern) });
    }
    if (String(call.input.command).startsWith('cat')) return errorLog;
    return `> ${String(call.input.command)}\n${'test passed\n'.repeat(30)}1 failing: db retries forever`;
  }

  let history: Message[] = [
    { role: 'system', content: 'You are a coding agent. Tools: read_file, bash, read_offloaded.' },
    { role: 'user', content: 'The service hangs under load. Find out why and fix it.' },
  ];
  let lastUsage: { inputTokens: number; messageCount: number } | undefined;
  for (let turn = 0; turn < 14; turn += 1) {
    const prepared = await manager.prepare(history, lastUsage === undefined ? {} : { lastUsage });
    const { stats } = prepared;
    const did = prepared.actions.map((action) => action.type).join(', ') || 'nothing';
    console.log(
      `turn ${String(turn + 1).padStart(2)}: ${String(stats.messagesOut).padStart(2)} messages, ~${stats.tokensAfter} tokens ` +
        `(trigger ${stats.triggerTokens}, ratio ${stats.calibrationRatio.toFixed(2)}); did: ${did}`,
    );
    for (const action of prepared.actions) {
      if (action.type === 'compact')
        console.log(
          `         compacted ${action.tokensBefore} -> ${action.tokensAfter} tokens, ${action.restoredFileCount} file(s) restored, archive ${action.archiveReference}`,
        );
    }

    // The scripted model: the provider counts the prompt about 1.33x the local count, plus its system prompt and tools.
    const inputTokens = Math.round(1.33 * countTokens(prepared.messages)) + 1500;
    lastUsage = { inputTokens, messageCount: prepared.messages.length };
    const step = SCRIPT[turn % SCRIPT.length]!;
    const call: ToolUseBlock = { type: 'tool_use', id: `toolu_${turn}`, name: step.tool, input: step.input };
    const notes = `${step.note}\n${Array.from({ length: 12 }, (_, line) => `Note ${turn}.${line}: the retry loop in db.ts never backs off.`).join('\n')}`;
    const reply: ContentBlock[] = [{ type: 'text', text: notes }, call];
    const output = await runTool(call, prepared.messages);
    history = [
      ...prepared.messages,
      { role: 'assistant', content: reply },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: output }] },
    ];
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}
