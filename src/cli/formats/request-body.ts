/**
 * Request bodies `{ system?, messages, tools?, ... }` as sent to a Messages API. The `system`
 * field is what the model reads first, so it becomes the leading system message (and the Head
 * that compaction keeps); `tools` are billed as input, so they are counted. Every other field
 * (`model`, `max_tokens`, ...) is kept when a new history is written back.
 */
import type { Message } from '../../index.js';
import { CliError } from '../errors.js';
import type { Transcript } from './transcript.js';

/**
 * Reads a request body. The messages are not checked here (the caller does, naming the index).
 *
 * @throws {CliError} when `messages` is not an array, `system` is neither a string nor an
 * array of blocks, or `tools` is not an array.
 */
export function readRequestBody(body: Readonly<Record<string, unknown>>, source: string): Transcript {
  const { system, messages, tools } = body;
  if (!Array.isArray(messages)) throw new CliError(`${source}: request body: "messages" must be an array of messages`);
  if (system !== undefined && typeof system !== 'string' && !Array.isArray(system)) {
    throw new CliError(`${source}: request body: "system" must be a string or an array of blocks`);
  }
  if (tools !== undefined && !Array.isArray(tools)) throw new CliError(`${source}: request body: "tools" must be an array`);
  const hasSystem = system !== undefined && system !== '' && !(Array.isArray(system) && system.length === 0);
  const leading: Message[] = hasSystem ? [{ role: 'system', content: system as Message['content'] }] : [];
  return {
    format: 'request-body',
    messages: [...leading, ...(messages as Message[])],
    toolDefinitions: tools as unknown[] | undefined,
    requestBody: body,
  };
}

/**
 * Puts a new history back into the request body it came from: a leading system message goes
 * back to `system` (so `system` keeps its string or block form), the rest to `messages`.
 */
export function writeRequestBody(body: Readonly<Record<string, unknown>>, messages: readonly Message[]): Record<string, unknown> {
  const hadSystem = body.system !== undefined && body.system !== '' && !(Array.isArray(body.system) && body.system.length === 0);
  const first = messages[0];
  if (hadSystem && first?.role === 'system') {
    return { ...body, system: first.content, messages: messages.slice(1) };
  }
  return { ...body, messages: [...messages] };
}
