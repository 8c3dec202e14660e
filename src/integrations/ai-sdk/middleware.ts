/**
 * A language-model middleware for the AI SDK's `wrapLanguageModel`: the fallback for loops whose
 * `prepareStep` you do not control (a framework on top of the AI SDK, `generateObject`, a
 * provider registry). It works on the provider-level prompt (`LanguageModelV3Prompt` in `ai` 6,
 * `LanguageModelV4Prompt` in `ai` 7), which is the `ModelMessage` shape narrowed: user and
 * assistant content always arrays of parts, tool results with the same `output` union. The
 * manager's `ai-sdk` format reads it as it is; the messages compaction builds (a summary, a
 * restored file) come back with string content and are turned into text parts here.
 */
import { describeValue, InvalidOptionError } from '../../core/errors.js';
import { sameMessages } from '../same-messages.js';
import { assertContextManager } from './types.js';
import type { IntegrationContextManager } from '../manager-source.js';

/** The part of the AI SDK's call options (`LanguageModelV3CallOptions`/`V4`) the middleware reads. */
export interface AiSdkCallParams {
  /** The provider-level prompt: system, user, assistant and tool messages. */
  prompt: readonly unknown[];
}

/** The argument of a middleware's `transformParams`. */
export interface AiSdkTransformParamsOptions<PARAMS extends AiSdkCallParams> {
  /** `'generate'` for `doGenerate`, `'stream'` for `doStream`. */
  type: 'generate' | 'stream';
  /** The call options, prompt included. */
  params: PARAMS;
  /** The wrapped model (not used). */
  model?: unknown;
}

/**
 * A language-model middleware (`LanguageModelMiddleware`) that prepares the prompt of every
 * call. Its `transformParams` is generic, so the same object fits `ai` 6 (`LanguageModelV3Middleware`)
 * and `ai` 7 (`LanguageModelV4Middleware`).
 */
export interface AiSdkContextMiddleware {
  /** `'v3'`: the middleware version both majors accept. */
  readonly specificationVersion: 'v3';
  /** Prepares `params.prompt` with the context manager; the rest of `params` is passed on as it is. */
  transformParams<PARAMS extends AiSdkCallParams>(options: AiSdkTransformParamsOptions<PARAMS>): Promise<PARAMS>;
}

/**
 * The prompt in provider shape: a user or assistant message built with string content (by
 * compaction) gets one text part; every other message is kept as it is.
 */
function toProviderPrompt(messages: readonly unknown[]): unknown[] {
  return messages.map((message) => {
    const { role, content } = message as { role?: unknown; content?: unknown };
    if ((role === 'user' || role === 'assistant') && typeof content === 'string') {
      return { ...(message as object), content: [{ type: 'text', text: content }] };
    }
    return message;
  });
}

/**
 * Creates a `wrapLanguageModel` middleware that runs the context manager on the prompt of every
 * model call: tool results are offloaded (as the manager's `offload.timing` says), and an
 * over-limit history compacted, before the provider sees them. The history your loop keeps is not changed (`responseMessages` keep the
 * raw outputs): each call starts again from the full prompt, and the manager, whose decisions
 * are kept in its store and keyed by content, applies the ones it took (the same references,
 * the same summary) without summarizing again. Prefer `createPrepareStep` where you can reach
 * the loop; use this where you cannot.
 *
 * @param manager - `createContextManager({ format: 'ai-sdk', ... })`.
 * @throws {InvalidOptionError} when `manager` is not a context manager; `transformParams`
 * rejects when `params.prompt` is not an array, and with the manager's own errors.
 *
 * @example
 * ```ts
 * const model = wrapLanguageModel({ model: openai('gpt-5'), middleware: createContextMiddleware(manager) });
 * ```
 */
export function createContextMiddleware(manager: IntegrationContextManager): AiSdkContextMiddleware {
  assertContextManager(manager);
  return {
    specificationVersion: 'v3',
    async transformParams<PARAMS extends AiSdkCallParams>({
      params,
    }: AiSdkTransformParamsOptions<PARAMS>): Promise<PARAMS> {
      const prompt: unknown = params?.prompt;
      if (!Array.isArray(prompt)) {
        throw new InvalidOptionError(
          `params.prompt must be an array of provider messages, got ${describeValue(prompt)}`,
        );
      }
      const result = await manager.prepare(prompt);
      if (sameMessages(result.messages, prompt)) return params;
      return { ...params, prompt: toProviderPrompt(result.messages) };
    },
  };
}
