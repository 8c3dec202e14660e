/**
 * LangChain.js: offload and compaction in a `createAgent` loop, through one middleware.
 *
 * Runs offline: the model is LangChain's own scripted `fakeModel()`, which here fetches a large
 * page (too large for the small window: cut to its reference, head and tail before the model
 * sees it), reads part of it back with the read tool the
 * middleware registers, then fetches more pages until the history goes over a small window and
 * is compacted. Everything is written to a temporary directory, removed at the end.
 *
 * Run after `npm run build`: `npx tsx examples/langchain.ts`
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, HumanMessage, ToolMessage, createAgent, fakeModel, tool } from 'langchain';
import { z } from 'zod';
import { contextOffloadMiddleware } from 'agent-context-offload/langchain';

/** A page of numbered log lines, about 90 characters each. */
function buildPage(name: string, lineCount: number): string {
  const lines: string[] = [];
  for (let line = 1; line <= lineCount; line++) {
    lines.push(
      `${name}:${line} request ${line * 7} handled in ${(line * 37) % 1000} ms (cache ${line % 3 === 0 ? 'miss' : 'hit'})`,
    );
  }
  return lines.join('\n');
}

const pages: Record<string, string> = {
  'access-log': buildPage('access-log', 300),
  a: buildPage('a', 20),
  b: buildPage('b', 20),
  c: buildPage('c', 20),
};

/** What the scripted model writes along with a tool call: its notes so far, a few thousand characters (never offloaded: only tool results are). */
function writeNotes(step: number): string {
  const notes: string[] = [];
  for (let line = 1; line <= 25; line++) {
    notes.push(
      `Step ${step}, note ${line}: request ${step * 100 + line} looked ${line % 4 === 0 ? 'slow' : 'fine'}, ${(line * 53) % 900} ms, worth ${line % 2 === 0 ? 'a second look' : 'no follow-up'}.`,
    );
  }
  return notes.join('\n');
}

/** A reply of the scripted model: its notes and one tool call. */
function callTool(step: number, name: string, args: Record<string, unknown>): AIMessage {
  return new AIMessage({
    content: writeNotes(step),
    tool_calls: [{ name, args, id: `call_${step}`, type: 'tool_call' }],
  });
}

const fetchPage = tool(async ({ name }) => pages[name] ?? `no page named ${name}`, {
  name: 'fetch_page',
  description: 'Fetches a page by name.',
  schema: z.object({ name: z.string() }),
});

const outputDir = await mkdtemp(join(tmpdir(), 'aco-langchain-example-'));
try {
  // The scripted model: it asks for the big page, then reads lines 120-124 of it back by the
  // reference it was shown, then fetches three more pages, writing notes as it goes, and answers.
  const model = fakeModel()
    .respond(callTool(1, 'fetch_page', { name: 'access-log' }))
    .respond((messages) => {
      const result = messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === 'call_1');
      const reference = String(result?.content);
      console.log(`2nd model call sees the log as: ${reference}`);
      return callTool(2, 'read_offloaded', { ref: reference, offset: 120, limit: 5 });
    })
    .respond((messages) => {
      const read = messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === 'call_2');
      console.log(`3rd model call reads it back:\n${String(read?.content)}`);
      return callTool(3, 'fetch_page', { name: 'a' });
    })
    .respond(callTool(4, 'fetch_page', { name: 'b' }))
    .respond(callTool(5, 'fetch_page', { name: 'c' }))
    .respond((messages) => {
      console.log(
        `6th model call: ${messages.length} messages, the first starting "${String(messages[0]?.content).split('\n')[0]}"`,
      );
      return new AIMessage('Read the access log and pages a, b and c.');
    });

  // The few lines a user adds: the middleware, given to createAgent.
  const contextOffload = contextOffloadMiddleware({
    outputDir, // where offloaded results and archives go
    contextTokenLimit: 4000, // a tiny window, so that this short run gets compacted
    offload: { directThreshold: 4000 }, // older results of 4,000+ characters go to the store as they age (a new one over half the window is cut)
    logger: { warn: () => {} }, // quiet: the offline summarizer warns that it is not an LLM
    onCompact: (action) =>
      console.log(`compacted before a model call: ${action.tokensBefore} -> ${action.tokensAfter} tokens`),
  });
  const agent = createAgent({ model, tools: [fetchPage], middleware: [contextOffload] });

  const result = await agent.invoke({ messages: [new HumanMessage('Check the access log, then pages a, b and c.')] });

  console.log(`model calls: ${model.callCount}; messages in the final state: ${result.messages.length}`);
  console.log(`final answer: ${String(result.messages.at(-1)?.content)}`);
} finally {
  await rm(outputDir, { recursive: true, force: true });
}
