/**
 * A scripted model for real agents: over more than 20 turns it asks the agent to run tools
 * whose output is large (`cat` of a 300 KB file, a long test log), then to open, with the
 * agent's own tool, the file a reference of the proxy names, then a few more large outputs,
 * then it ends. Each assistant turn carries a few KB of reasoning text, so the history grows
 * past a small window's trigger. It speaks Anthropic Messages (Claude Code), OpenAI Responses
 * (Codex) or the Gemini API (Gemini CLI), streamed, and records what every request held: its size, whether the large outputs
 * arrived as references, whether the read-back arrived as content, and compaction summaries.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { formats } from '../../src/formats/index.js';
import type { Message } from '../../src/core/types.js';
import {
  anthropicStreamEvents,
  responsesStreamEvents,
  sendJson,
  sendStream,
  type UpstreamRecord,
} from '../fixtures/scripted-llm-server.js';

/** Tool turns before the final answer. */
export const TOOL_TURNS = 22;
/** The turn that opens a reference with the agent's own tool. */
export const READ_BACK_TURN = 12;
/** A line of the test log that the read-back must bring back (within the part every agent keeps of it). */
const READ_BACK_MARKER = 'tests/case-20.spec.ts';

/** The 300 KB file the agent is asked to `cat`. */
export function buildBigFile(): string {
  return Array.from(
    { length: 4000 },
    (_, index) =>
      `line-${String(index + 1).padStart(6, '0')} ${'lorem ipsum dolor sit amet '.repeat(2)}${index % 97}\n`,
  ).join('');
}

/**
 * The shell command that prints a long test log: about 21 KB, under what the agents cut or
 * save aside themselves (Claude Code keeps a Bash output of 300 KB in a file of its own and
 * sends a 2 KB preview), so the whole log reaches the history. Each run prints its own header,
 * as real test runs differ in their timings.
 */
function testLogCommand(turn: number): string {
  // no command substitution: Gemini CLI refuses a command holding `$(...)`
  return `echo "test run ${turn}"; seq 1 400 | while read i; do echo "PASS tests/case-$i.spec.ts > handles input $i (3 ms)"; done; echo "FAIL tests/case-77.spec.ts > expected 1 to be 2"`;
}

type StepKind = 'big-file' | 'test-log' | 'read-back' | 'done';

function stepAt(turn: number): StepKind {
  if (turn >= TOOL_TURNS) return 'done';
  if (turn === READ_BACK_TURN) return 'read-back';
  return turn % 2 === 0 ? 'big-file' : 'test-log';
}

/** What one main-loop request held. */
export interface TurnObservation {
  turn: number;
  /** Bytes of the request body. */
  bytes: number;
  /** The step whose result this request carries, and that result's size in characters. */
  previousStep: StepKind | undefined;
  resultChars: number;
  /** Whether that result names a file under the store directory instead of holding the output. */
  resultIsReference: boolean;
  /** Whether that result holds {@link READ_BACK_MARKER}. */
  resultHoldsMarker: boolean;
  /** A hash of the compaction summary the request starts with, if any. */
  summaryHash: string | undefined;
}

/** A tool call of the scripted model: a command, the agent's own read of a path, or the proxy's read tool on a reference. */
type ModelCall = { command: string } | { readPath: string } | { readRef: string };

/** Who opens the reference at the read-back turn: the agent with its own tool, or the proxy (`read_offloaded`). */
export type ReadBackBy = 'agent' | 'proxy';

/** The agent's protocol and its tools. */
export interface AgentDialect {
  /** Whether a request is the agent's main loop (rather than a side request for a title, ...). */
  isMainLoop(body: Record<string, unknown>): boolean;
  /** The request's history, canonical. */
  history(body: Record<string, unknown>): Message[];
  /** Answers with reasoning text and one tool call (or the final text when `call` is undefined). */
  reply(
    response: ServerResponse,
    turn: number,
    text: string,
    call: ModelCall | undefined,
    inputTokens: number,
  ): Promise<void>;
  /** Answers a side request. */
  replySide(response: ServerResponse, body: Record<string, unknown>): Promise<void> | void;
}

/** Claude Code: Anthropic Messages, `Bash` and `Read`. */
export const CLAUDE_CODE_DIALECT: AgentDialect = {
  isMainLoop: (body) =>
    Array.isArray(body.tools) && body.tools.some((tool: { name?: unknown }) => tool.name === 'Bash'),
  history: (body) => formats.anthropic.toCanonical(body.messages as Message[]),
  reply(response, turn, text, call, inputTokens) {
    const usage = { input_tokens: inputTokens, output_tokens: 50 };
    if (call === undefined) return sendStream(response, anthropicStreamEvents([{ type: 'text', text }], usage));
    const tool =
      'command' in call
        ? {
            type: 'tool_use' as const,
            id: `toolu_turn_${turn}`,
            name: 'Bash',
            input: { command: call.command, description: 'Print output for the scripted test' },
          }
        : 'readRef' in call
          ? {
              type: 'tool_use' as const,
              id: `toolu_turn_${turn}`,
              name: 'read_offloaded',
              input: { ref: call.readRef },
            }
          : {
              type: 'tool_use' as const,
              id: `toolu_turn_${turn}`,
              name: 'Read',
              input: { file_path: call.readPath, offset: 1, limit: 150 },
            };
    return sendStream(response, anthropicStreamEvents([{ type: 'text', text }, tool], usage));
  },
  replySide(response, body) {
    const usage = { input_tokens: 10, output_tokens: 2 };
    if (body.stream === true)
      return sendStream(response, anthropicStreamEvents([{ type: 'text', text: 'Scripted test session' }], usage));
    return sendJson(response, {
      id: 'msg_side',
      type: 'message',
      role: 'assistant',
      model: String(body.model),
      content: [{ type: 'text', text: 'Scripted test session' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage,
    });
  },
};

/** The server-sent events of a Gemini `streamGenerateContent?alt=sse` answer: the text, then the call, then the usage. */
function geminiStreamEvents(parts: readonly Record<string, unknown>[], promptTokenCount: number): string[] {
  return parts.map((part, index) => {
    const last = index === parts.length - 1;
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [part] }, index: 0, ...(last && { finishReason: 'STOP' }) }],
      usageMetadata: last
        ? { promptTokenCount, candidatesTokenCount: 50, totalTokenCount: promptTokenCount + 50 }
        : { promptTokenCount },
      modelVersion: 'gemini-2.5-pro',
    };
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  });
}

/** Gemini CLI: the Gemini API, `run_shell_command` and `read_file`. */
export const GEMINI_CLI_DIALECT: AgentDialect = {
  isMainLoop: (body) =>
    Array.isArray(body.tools) &&
    body.tools.some(
      (tool: { functionDeclarations?: Array<{ name?: unknown }> }) =>
        tool.functionDeclarations?.some((declaration) => declaration.name === 'run_shell_command') === true,
    ),
  history: (body) => formats.gemini.toCanonical(body.contents as never[]),
  reply(response, _turn, text, call, inputTokens) {
    const parts: Record<string, unknown>[] = [{ text }];
    if (call !== undefined) {
      parts.push({
        functionCall:
          'command' in call
            ? {
                name: 'run_shell_command',
                args: { command: call.command, description: 'Print output for the scripted test' },
              }
            : 'readRef' in call
              ? { name: 'read_offloaded', args: { ref: call.readRef } }
              : { name: 'read_file', args: { file_path: call.readPath, start_line: 1, end_line: 150 } },
      });
    }
    return sendStream(response, geminiStreamEvents(parts, inputTokens));
  },
  // the CLI's own checks (next speaker, loops, routing) ask for JSON: one answer that says "go on as you are"
  replySide: (response) =>
    sendJson(response, {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              {
                text: JSON.stringify({
                  next_speaker: 'user',
                  reasoning: 'The scripted turn is complete.',
                  unproductive_state_confidence: 0,
                  unproductive_state_analysis: 'Each step differs.',
                  model_choice: 'pro',
                  complexity_reasoning: 'Scripted.',
                  complexity_score: 50,
                }),
              },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
    }),
};

/** Codex: OpenAI Responses, `exec_command`. */
export const CODEX_DIALECT: AgentDialect = {
  isMainLoop: (body) =>
    Array.isArray(body.tools) && body.tools.some((tool: { name?: unknown }) => tool.name === 'exec_command'),
  history: (body) => formats.openaiResponses.toCanonical(body.input as never[]),
  reply(response, turn, text, call, inputTokens) {
    if (call === undefined)
      return sendStream(response, responsesStreamEvents([{ type: 'message', text }], inputTokens));
    const functionCall =
      'readRef' in call
        ? { name: 'read_offloaded', arguments: JSON.stringify({ ref: call.readRef }) }
        : {
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: 'command' in call ? call.command : `sed -n '1,150p' '${call.readPath}'` }),
          };
    return sendStream(
      response,
      responsesStreamEvents(
        [
          { type: 'message', text },
          { type: 'function_call', call_id: `call_turn_${turn}`, ...functionCall },
        ],
        inputTokens,
      ),
    );
  },
  replySide: (response) => sendJson(response, {}),
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { text?: unknown; content?: unknown }) =>
      typeof block.text === 'string' ? block.text : textOf(block.content),
    )
    .join('\n');
}

/** The content of the last tool result of the history, as text. */
function lastToolResult(history: readonly Message[]): string | undefined {
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const content = history[index]?.content;
    if (!Array.isArray(content)) continue;
    const results = content.filter((block) => (block as { type?: unknown }).type === 'tool_result');
    if (results.length > 0) return textOf((results.at(-1) as { content?: unknown }).content);
  }
  return undefined;
}

/** The reasoning text of a turn: about 2.5 KB, different every turn. */
function reasoningText(turn: number, step: StepKind): string {
  const lines = Array.from(
    { length: 30 },
    (_, index) =>
      `- check ${turn}.${index}: module-${turn * 31 + index} still matches its contract; nothing to change there yet.`,
  );
  return `Turn ${turn}: next I will ${step === 'done' ? 'summarize' : `run the ${step} step`}.\n${lines.join('\n')}`;
}

/** The scripted model: answers requests and keeps what it saw. */
export interface ScriptedModel {
  answer(record: UpstreamRecord, response: ServerResponse): Promise<void> | void;
  observations: TurnObservation[];
  /** Side requests answered (titles and the like). */
  sideRequests: number;
}

/**
 * A scripted model for `dialect`. `bigFilePath` is the file `cat` reads; `storeDirectory` is the
 * proxy's: the read-back opens the reference of the last test log (without the proxy, the big
 * file itself), with the agent's own tool or, `readBackBy: 'proxy'`, with the proxy's
 * `read_offloaded` (whose result the proxy gives in the next request, the agent never asked).
 */
export function createScriptedModel(
  dialect: AgentDialect,
  bigFilePath: string,
  storeDirectory: string | undefined,
  readBackBy: ReadBackBy = 'agent',
): ScriptedModel {
  const observations: TurnObservation[] = [];
  let sideRequests = 0;
  let lastReference: string | undefined;
  const model: ScriptedModel = {
    observations,
    get sideRequests() {
      return sideRequests;
    },
    answer(record, response) {
      const body = record.body ?? {};
      if (!dialect.isMainLoop(body)) {
        sideRequests += 1;
        return dialect.replySide(response, body);
      }
      const turn = observations.length;
      const history = dialect.history(body);
      const result = lastToolResult(history);
      const referenced =
        storeDirectory !== undefined && result !== undefined
          ? new RegExp(`${storeDirectory.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\\s\\]]+`).exec(result)
          : null;
      const previousStep = turn === 0 ? undefined : stepAt(turn - 1);
      if (referenced !== null && previousStep === 'test-log') lastReference = referenced[0];
      const summary = history.find(
        (message) => message.role === 'user' && textOf(message.content).startsWith('[Conversation compressed]'),
      );
      observations.push({
        turn,
        bytes: record.rawBody.length,
        previousStep,
        resultChars: result?.length ?? 0,
        resultIsReference: referenced !== null && (result?.length ?? 0) < 10_000,
        resultHoldsMarker: result?.includes(READ_BACK_MARKER) ?? false,
        summaryHash:
          summary === undefined
            ? undefined
            : createHash('sha256').update(textOf(summary.content)).digest('hex').slice(0, 12),
      });
      const step = stepAt(turn);
      const inputTokens = Math.ceil(record.rawBody.length / 4);
      const text = reasoningText(turn, step);
      if (step === 'done')
        return dialect.reply(response, turn, `All ${TOOL_TURNS} steps ran. Done.`, undefined, inputTokens);
      if (step === 'read-back')
        return dialect.reply(
          response,
          turn,
          text,
          readBackBy === 'proxy' && lastReference !== undefined
            ? { readRef: lastReference }
            : { readPath: lastReference ?? bigFilePath },
          inputTokens,
        );
      return dialect.reply(
        response,
        turn,
        text,
        { command: step === 'big-file' ? `cat ${bigFilePath}` : testLogCommand(turn) },
        inputTokens,
      );
    },
  };
  return model;
}
