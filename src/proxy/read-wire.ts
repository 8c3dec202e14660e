/**
 * What the read tool is on one API's wire, as the proxy's read rounds use it: the definition
 * added to a request's tools, the calls found in an answer, the history items carrying their
 * results. Each API's wire is in `read-calls.ts` (Gemini's in `gemini-read-calls.ts`).
 */

/** One call of the read tool in an answer. */
export interface ReadCall {
  /**
   * The call's id, which its result names (`tool_use_id`, `call_id`, `tool_call_id`); `undefined`
   * for a Gemini call that came without one (Gemini pairs a response with its call by position).
   */
  id: string | undefined;
  /** The arguments as the model wrote them: an object, or JSON text. */
  input: unknown;
}

/** An answer that calls the read tool: the calls, and the model's turn to put in the history before their results. */
interface ReadRound {
  calls: readonly ReadCall[];
  /** The model's turn without calls of the agent's own tools (they are asked again after the read). */
  turn: readonly unknown[];
}

/** The read tool on one API's wire. */
export interface ReadToolWire {
  /** The read tool's definition as this wire adds it to a request's tools (one entry of `tools`). */
  readonly definition: unknown;
  /** The request's tools with the read tool last, or `undefined` when the client has a tool of that name already. */
  addTool(tools: unknown): unknown[] | undefined;
  /**
   * The answer's read calls, or `undefined` when it calls no read tool (or is not an answer the
   * proxy can read). `streamed` says the answer is server-sent events.
   */
  findReads(answer: string, streamed: boolean): ReadRound | undefined;
  /** The history items that give each call its result, in order. */
  writeResults(calls: readonly ReadCall[], results: readonly string[]): unknown[];
}

/** The JSON payloads of a complete stream of server-sent events, in order (`[DONE]` and comments left out). */
export function readEventPayloads(stream: string): unknown[] {
  const payloads: unknown[] = [];
  for (const event of stream.split(/\r?\n\r?\n|\r\r/)) {
    const data = event
      .split(/\r?\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    if (data.length === 0) continue;
    const text = data.join('\n');
    if (text.trim() === '[DONE]') continue;
    try {
      payloads.push(JSON.parse(text) as unknown);
    } catch {
      // an event that is not JSON holds no call: it is left out
    }
  }
  return payloads;
}
