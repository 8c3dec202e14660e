/**
 * Read-backs: what an agent sends for a tool result the model never saw whole. A result that
 * reached the model only as a reference (or cut to a head and tail around one) before the model
 * acted on it is read back, in one more request: that request's context plus the read call and
 * its result. So a result is *seen* when the first request after its arrival holds a
 * `tool_result` of its call with its whole text; a reference, a cut, a preview are not. A cut
 * result counts as one read-back of the whole text: the part left out may be anywhere in it,
 * and an agent that does not know where reads it all. Shared by `agent-context replay` and the
 * peer benchmark, so both count the same requests.
 */
import { countTokens } from '../../api/tokens.js';
import { renderResultText } from '../../core/compact/summary/conversation-facts.js';
import { isToolResultBlock, type Message } from '../../core/types.js';
import { estimateCachedInputCost, type CacheRatios } from './prompt-cache.js';

/** A tool result of a transcript, as it arrived. */
export interface ArrivedResult {
  id: string;
  /** Its text (the string, or its text blocks joined by a line break). */
  text: string;
  /** The string, or each of its text blocks: a store may join blocks otherwise than {@link text} does. */
  parts: readonly string[];
  /** Index of the transcript message holding it. */
  index: number;
}

/** The text blocks of a result's content, each whole. */
function renderResultParts(content: readonly unknown[]): string[] {
  return content.flatMap((block) => {
    const text = renderResultText([block]);
    return text === '' ? [] : [text];
  });
}

/** Every tool result of `messages` with some text, in order. */
function listArrivedResults(messages: readonly Message[]): ArrivedResult[] {
  const results: ArrivedResult[] = [];
  messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    for (const block of message.content) {
      if (!isToolResultBlock(block)) continue;
      const text = renderResultText(block.content);
      if (text === '') continue;
      const parts = typeof block.content === 'string' ? [text] : renderResultParts(block.content);
      results.push({ id: block.tool_use_id, text, parts, index });
    }
  });
  return results;
}

/**
 * The results of `messages` by the request that first sends them: `turns` are the request
 * ends (`findRequestTurns`), and a result at index `i` reaches request `k`, the first whose end
 * is past `i`. Results after the last request reach none.
 */
export function groupResultsByRequest(
  messages: readonly Message[],
  turns: readonly number[],
): Map<number, ArrivedResult[]> {
  const byRequest = new Map<number, ArrivedResult[]>();
  for (const result of listArrivedResults(messages)) {
    const request = turns.findIndex((end) => end > result.index);
    if (request === -1) continue;
    const list = byRequest.get(request);
    if (list === undefined) byRequest.set(request, [result]);
    else list.push(result);
  }
  return byRequest;
}

/** Whether a `tool_result` of `messages` for `result`'s call holds its whole text. */
export function holdsWholeResult(messages: readonly Message[], result: ArrivedResult): boolean {
  return messages.some(
    (message) =>
      typeof message.content !== 'string' &&
      message.content.some(
        (block) =>
          isToolResultBlock(block) &&
          block.tool_use_id === result.id &&
          renderResultText(block.content).includes(result.text),
      ),
  );
}

/** The call and its result, as an agent reads a stored result back. */
function createReadBack(result: ArrivedResult): Message[] {
  const id = `read-back-${result.id}`;
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_offloaded', input: { result: result.id } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result.text }] },
  ];
}

/**
 * The read-back requests an agent sends after `sent` for `unseen`, in order: each is the one
 * before it (the first: `sent`) plus one read call and its result.
 */
function buildReadBackRequests(sent: readonly Message[], unseen: readonly ArrivedResult[]): Message[][] {
  const requests: Message[][] = [];
  let context: readonly Message[] = sent;
  for (const result of unseen) {
    const next = [...context, ...createReadBack(result)];
    requests.push(next);
    context = next;
  }
  return requests;
}

/** The read-backs after one request, added up. */
export interface ReadBackFigures {
  /** Read-back requests. */
  requests: number;
  /** Input tokens they sent, tool definitions included. */
  tokens: number;
  /** Their cost with prompt caching, in US dollars: each reads the request before it from the cache and writes its read call and result. */
  cachedCost: number;
}

/**
 * The read-backs an agent sends after `sent` (its request sent `fixedTokens` of tool
 * definitions besides the messages) for the results of `arrived` it did not hold whole.
 */
export function measureReadBacks(
  sent: readonly Message[],
  arrived: readonly ArrivedResult[],
  fixedTokens: number,
  price: { pricePerMTok: number; ratios: CacheRatios },
): ReadBackFigures {
  const unseen = arrived.filter((result) => !holdsWholeResult(sent, result));
  const figures: ReadBackFigures = { requests: 0, tokens: 0, cachedCost: 0 };
  if (unseen.length === 0) return figures;
  let cached = fixedTokens + countTokens(sent);
  for (const request of buildReadBackRequests(sent, unseen)) {
    const tokens = fixedTokens + countTokens(request);
    figures.requests += 1;
    figures.tokens += tokens;
    figures.cachedCost += estimateCachedInputCost(tokens, cached, price.pricePerMTok, price.ratios);
    cached = tokens;
  }
  return figures;
}
