/**
 * Reads answered by the proxy: the request goes upstream with the read tool among its tools and
 * the answer is held whole (a stream too: the proxy must know whether it calls the tool). An
 * answer without a read call goes to the client byte for byte, status and headers kept. One with
 * read calls is answered here: the proxy reads from the session's store, appends the model's
 * turn and the results to the history, and asks again, up to a bound of rounds, so the client
 * only ever receives answers without read calls. A call of the agent's own tools in a turn that
 * also read is left out of the turn: the model calls it again once it has what it read.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ReadOffloadedTool } from '../api/read-offloaded-tool.js';
import { decodeRequestBody } from './body-encoding.js';
import { buildClientHeaders, buildUpstreamHeaders, upstreamUrl } from './forward.js';
import type { ReadToolWire } from './read-calls.js';

/** An upstream answer, held whole. */
export interface HeldAnswer {
  status: number;
  statusMessage: string | undefined;
  headers: IncomingHttpHeaders;
  rawHeaders: readonly string[];
  /** The body's bytes as they came (still in their `content-encoding`). */
  body: Buffer;
  /** The rest of an answer that outgrew what is held (`body` is its start), paused: it goes to the client as it comes. */
  rest?: IncomingMessage | undefined;
}

/** Options of {@link answerWithReads}. */
export interface AnswerWithReadsOptions {
  /** The upstream's base URL, and the request's path and query as sent on. */
  upstream: URL;
  url: string;
  /** The request body without its history (its `tools` already holding the read tool). */
  body: Readonly<Record<string, unknown>>;
  /** Where the history goes in the body (`messages` or `input`), and the history prepared. */
  historyField: string;
  history: readonly unknown[];
  wire: ReadToolWire;
  readTool: ReadOffloadedTool;
  /** Read rounds answered before the answer is refused. */
  maxRounds: number;
  /** The largest answer held and decoded to find its read calls; a larger one goes to the client as it comes. */
  maxAnswerBytes: number;
  /** Sees the first answer (the one whose usage describes the history prepared), before anything reaches the client. */
  onFirstAnswer(answer: HeldAnswer): Promise<void>;
  /** Answers the client when the upstream cannot be reached. */
  onUnreachable(error: Error): void;
  /** Answers the client when the model still reads after `maxRounds` rounds. */
  onTooManyRounds(rounds: number): void;
}

/** How a request answered with reads ended: the rounds the proxy answered. */
export interface AnswerWithReadsResult {
  readRounds: number;
  readCalls: number;
}

/**
 * Sends `body` upstream with the client's headers and holds the answer, up to `maxHeldBytes`
 * (past them it resolves with what came and the rest paused); rejects when the upstream cannot
 * be reached.
 */
function askUpstream(
  request: IncomingMessage,
  target: URL,
  body: Buffer,
  signal: AbortSignal,
  maxHeldBytes: number,
): Promise<HeldAnswer> {
  const headers = buildUpstreamHeaders(request.rawHeaders, target, body.length, true);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HeldAnswer>((resolve, reject) => {
    const outgoing = send(target, { method: 'POST', headers, signal });
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let held = 0;
      const answer = (rest?: IncomingMessage): HeldAnswer => ({
        status: incoming.statusCode ?? 502,
        statusMessage: incoming.statusMessage,
        headers: incoming.headers,
        rawHeaders: incoming.rawHeaders,
        body: Buffer.concat(chunks),
        rest,
      });
      const onData = (chunk: Buffer): void => {
        chunks.push(chunk);
        held += chunk.length;
        if (held <= maxHeldBytes) return;
        // an answer this large is no read round the proxy could take: the client gets it as it comes
        incoming.off('data', onData);
        incoming.off('end', onEnd);
        incoming.pause();
        resolve(answer(incoming));
      };
      const onEnd = (): void => resolve(answer());
      incoming.on('data', onData);
      incoming.on('error', reject);
      incoming.on('end', onEnd);
    });
    outgoing.end(body);
  });
}

/** The answer as text, decoded from its `content-encoding`; `undefined` when it cannot be. */
async function readAnswerText(answer: HeldAnswer, maxBytes: number): Promise<string | undefined> {
  const encoding = answer.headers['content-encoding'];
  const decoded = await decodeRequestBody(answer.body, encoding, maxBytes);
  return decoded.kind === 'plain' || decoded.kind === 'decoded' ? decoded.body.toString('utf8') : undefined;
}

function isStream(answer: HeldAnswer): boolean {
  return /^text\/event-stream/i.test(answer.headers['content-type'] ?? '');
}

/** Sends the start of an answer held, then the rest as it comes; resolves when the client has it all or went away. */
function passOn(response: ServerResponse, answer: HeldAnswer, rest: IncomingMessage): Promise<void> {
  response.writeHead(answer.status, answer.statusMessage, buildClientHeaders(answer.rawHeaders));
  response.write(answer.body);
  rest.on('error', (error) => response.destroy(error));
  rest.pipe(response);
  return new Promise((resolve) => response.once('close', resolve));
}

function replay(response: ServerResponse, answer: HeldAnswer): void {
  response.writeHead(answer.status, answer.statusMessage, buildClientHeaders(answer.rawHeaders));
  response.end(answer.body);
}

/**
 * Sends the request and answers the model's read calls until an answer has none, then gives
 * the client that answer as it came. Resolves when the client has its answer (or went away);
 * never rejects.
 */
export async function answerWithReads(
  request: IncomingMessage,
  response: ServerResponse,
  options: AnswerWithReadsOptions,
): Promise<AnswerWithReadsResult> {
  const target = upstreamUrl(options.upstream, options.url);
  const gone = new AbortController();
  const onClose = (): void => {
    if (!response.writableFinished) gone.abort(new Error('the client went away'));
  };
  response.on('close', onClose);
  const added: unknown[] = [];
  let readCalls = 0;
  try {
    for (let round = 0; ; round += 1) {
      const body = Buffer.from(
        JSON.stringify({ ...options.body, [options.historyField]: [...options.history, ...added] }),
        'utf8',
      );
      let answer: HeldAnswer;
      try {
        answer = await askUpstream(request, target, body, gone.signal, options.maxAnswerBytes);
      } catch (error) {
        if (!gone.signal.aborted) options.onUnreachable(error as Error);
        return { readRounds: round, readCalls };
      }
      if (answer.rest !== undefined) {
        await passOn(response, answer, answer.rest);
        return { readRounds: round, readCalls };
      }
      if (round === 0) await options.onFirstAnswer(answer);
      if (gone.signal.aborted) return { readRounds: round, readCalls };
      const ok = answer.status >= 200 && answer.status < 300;
      const text = ok ? await readAnswerText(answer, options.maxAnswerBytes) : undefined;
      const reads = text === undefined ? undefined : options.wire.findReads(text, isStream(answer));
      if (reads === undefined) {
        replay(response, answer);
        return { readRounds: round, readCalls };
      }
      if (round >= options.maxRounds) {
        options.onTooManyRounds(round);
        return { readRounds: round, readCalls };
      }
      // one at a time, in order: a model's reads of one value page through it
      const results: string[] = [];
      for (const call of reads.calls) results.push(await options.readTool.execute(call.input, { signal: gone.signal }));
      readCalls += reads.calls.length;
      added.push(...reads.turn, ...options.wire.writeResults(reads.calls, results));
    }
  } finally {
    response.off('close', onClose);
  }
}
