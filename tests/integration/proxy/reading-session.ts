/**
 * A session in which the model reads what the proxy offloaded, for the suites and the benchmark
 * of reads answered by the proxy: a scripted Anthropic model that, when the newest tool result
 * it gets is a reference, calls `read_offloaded` on it and then runs the next command; and an
 * agent that runs each command (a large output) and sends its whole history at every request,
 * to whichever proxy it is given.
 */
import type { ServerResponse } from 'node:http';
import { sendRaw } from './proxy-harness.js';
import { sendJson, type UpstreamRecord } from '../../fixtures/scripted-llm-server.js';

/** A reference line, as the proxy leaves it in place of an offloaded result. */
export const REFERENCE = /\[(?:Content offloaded to|Tool result offloaded to file): ([^\]]+)\]/;

/** The output of the agent's command number `turn`: `lines` lines, each naming its turn. */
export function commandOutput(turn: number, lines = 150): string {
  return Array.from(
    { length: lines },
    (_, line) => `turn ${turn} row ${line}: checksum ${(turn * 104_729 + line * 7919) % 100_000}`,
  ).join('\n');
}

/** The content a read answer shows: its numbered lines without their numbers, its footer left out. */
export function linesOf(readAnswer: string): string {
  return readAnswer
    .split('\n')
    .map((line) => /^\s*\d+\t(.*)$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined)
    .join('\n');
}

/** A read the model was answered: the command whose output it read, and what the proxy gave it. */
export interface AnsweredRead {
  turn: number;
  result: string;
}

type Block = Record<string, unknown>;

function blocksOf(message: unknown): Block[] {
  const content = (message as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? (content as Block[]) : [];
}

function answer(response: ServerResponse, record: UpstreamRecord, content: Block[]): void {
  sendJson(response, {
    id: `msg_${content.map((block) => String(block.id)).join('_')}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: 'tool_use',
    stop_sequence: null,
    // the provider's figure follows from the bytes it was sent, as a real one's does
    usage: { input_tokens: Math.ceil(record.rawBody.length / 4), output_tokens: 12 },
  });
}

/**
 * The scripted model: a new result that is a reference is read (`toolu_read_<turn>`); a read's
 * result, or a result kept inline, is followed by the next command (`toolu_cmd_<turn>`). Each
 * read's result is pushed to `reads`.
 */
export function createReadingModel(reads: AnsweredRead[]) {
  return (record: UpstreamRecord, response: ServerResponse): void => {
    const messages = (record.body?.messages ?? []) as unknown[];
    const last = blocksOf(messages.at(-1))[0];
    const commands = messages.flatMap(blocksOf).filter((block) => block.type === 'tool_use' && block.name === 'Bash');
    const turn = commands.length;
    if (last?.type === 'tool_result' && String(last.tool_use_id).startsWith('toolu_read_')) {
      reads.push({ turn: Number(String(last.tool_use_id).slice('toolu_read_'.length)), result: String(last.content) });
    } else if (last?.type === 'tool_result') {
      const reference = REFERENCE.exec(JSON.stringify(last.content));
      if (reference !== null) {
        const ref = JSON.parse(`"${reference[1]!}"`) as string;
        return answer(response, record, [
          { type: 'tool_use', id: `toolu_read_${turn - 1}`, name: 'read_offloaded', input: { ref } },
        ]);
      }
    }
    return answer(response, record, [
      { type: 'tool_use', id: `toolu_cmd_${turn}`, name: 'Bash', input: { command: `inspect part ${turn}` } },
    ]);
  };
}

const BASH_TOOL = { name: 'Bash', description: 'Runs a command.', input_schema: { type: 'object', properties: {} } };

/**
 * Runs `turns` turns of the agent, request `index` sent to `origins[index % origins.length]`
 * as the session `sessionName`: each answer's command is run and its output appended. Resolves
 * each request's time in ms, from sending to the whole answer.
 */
export async function runReadingSession(
  origins: readonly string[],
  sessionName: string,
  turns: number,
): Promise<number[]> {
  const history: unknown[] = [{ role: 'user', content: 'Inspect every part of the export.' }];
  const times: number[] = [];
  for (let index = 0; index < turns; index += 1) {
    const started = performance.now();
    const reply = await sendRaw(origins[index % origins.length]!, '/v1/messages', {
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'sk-ant-pool',
        'anthropic-version': '2023-06-01',
        'x-agent-context-session': sessionName,
      },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 256, tools: [BASH_TOOL], messages: history }),
    });
    times.push(performance.now() - started);
    if (reply.status !== 200) throw new Error(`request ${index}: ${reply.status} ${reply.body.toString('utf8')}`);
    const content = (JSON.parse(reply.body.toString('utf8')) as { content: Block[] }).content;
    const call = content.find((block) => block.type === 'tool_use');
    if (call?.name !== 'Bash') throw new Error(`request ${index}: the agent got ${JSON.stringify(content)}`);
    const turn = Number(String(call.id).slice('toolu_cmd_'.length));
    history.push(
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: commandOutput(turn) }] },
    );
  }
  return times;
}
