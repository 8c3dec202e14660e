/**
 * The read tool, `read_offloaded`: gives an agent its offloaded content back, a page at a time
 * or by pattern, from whatever store the content went to. One definition, shaped for each
 * tool API (Anthropic Messages, OpenAI Chat Completions and Responses, the AI SDK).
 */
import { assertAbortSignal, createAbortableStore } from '../core/abort.js';
import { describeValue, InvalidOptionError } from '../core/errors.js';
import { resolveNumberSetting } from '../core/options/env.js';
import { groupDigits } from '../core/text/figures.js';
import type { ContentStore } from '../core/ports.js';
import {
  createLineIndex,
  DEFAULT_READ_CHUNK_BYTES,
  DEFAULT_READ_CONTEXT_LINES,
  DEFAULT_READ_LIMIT,
  DEFAULT_READ_MAX_CHARS,
  MIN_READ_MAX_CHARS,
  READ_OFFLOADED_TOOL_NAME,
  readOffloaded,
  type ResolvedReadOffloadedOptions,
} from '../core/read/read-offloaded.js';
import { assertSafePathSegment } from '../core/store/safe-path.js';
import { compileRe2Pattern } from '../infrastructure/re2-pattern.js';
import { resolveStoreTarget } from './store-target.js';

export type { ReadOffloadedInput } from '../core/read/read-offloaded.js';

/** Options of {@link createReadOffloadedTool}: where the content is (exactly one of `store` and `outputDir`), and how much to show. */
export interface ReadOffloadedToolOptions {
  /** The store the offload wrote to (`createFileStore`, `createMemoryStore`, `createRedisStore`, ...). */
  store?: ContentStore | undefined;
  /** The `outputDir` the offload wrote to: read through a file store over that directory. */
  outputDir?: string | undefined;
  /**
   * Longest answer, in characters (UTF-16 code units), footer included; at least 500.
   * @default 20000
   */
  maxChars?: number | undefined;
  /**
   * Reads only this session's content: keys under `<sessionId>/` (direct offload's, and batch
   * offload's when it wrote under a session). Anything else is refused, so one tenant's agent
   * cannot read another's results by guessing a reference. 1-200 characters of `[A-Za-z0-9._-]`.
   * @default every reference the store wrote
   */
  sessionId?: string | undefined;
  /**
   * The tool's name, as the model calls it: 1-64 characters of `[A-Za-z0-9_-]`.
   * @default 'read_offloaded'
   */
  name?: string | undefined;
  /**
   * Lines of context shown before and after each line matching a `pattern`; 0-20.
   * @default 2
   */
  contextLines?: number | undefined;
}

/** Options of one call of the read tool's `execute`. */
export interface ReadOffloadedCallOptions {
  /**
   * Ends the call: every store call is raced against it, and an abort answers with a message
   * (`Could not read ...: <the reason>`) at once, even while the store has not replied.
   */
  signal?: AbortSignal | undefined;
}

/** A JSON Schema property of the tool's input. */
export interface ReadOffloadedSchemaProperty {
  type: 'string' | 'integer';
  description: string;
  minimum?: number;
}

/**
 * The JSON Schema of the tool's input (`{ ref, offset?, limit?, pattern? }`). A type alias, not
 * an interface, so that the SDKs' `{ [key: string]: unknown }` schema types accept it.
 */
export type ReadOffloadedInputSchema = {
  type: 'object';
  properties: {
    ref: ReadOffloadedSchemaProperty;
    offset: ReadOffloadedSchemaProperty;
    limit: ReadOffloadedSchemaProperty;
    pattern: ReadOffloadedSchemaProperty;
  };
  required: string[];
  additionalProperties: false;
};

/** The tool for the Anthropic Messages API (`tools: [readTool.anthropic]`). */
export interface AnthropicReadOffloadedTool {
  name: string;
  description: string;
  input_schema: ReadOffloadedInputSchema;
}

/** The tool for OpenAI Chat Completions (`tools: [readTool.openai]`). */
export interface OpenAIChatReadOffloadedTool {
  type: 'function';
  function: { name: string; description: string; parameters: ReadOffloadedInputSchema };
}

/**
 * The tool for the OpenAI Responses API (`tools: [readTool.openaiResponses]`). `strict` is
 * false: the input has optional fields, which strict mode does not allow.
 */
export interface OpenAIResponsesReadOffloadedTool {
  type: 'function';
  name: string;
  description: string;
  parameters: ReadOffloadedInputSchema;
  strict: false;
}

/**
 * The tool for the Vercel AI SDK (5 and later), as plain data: `inputSchema` is a plain JSON
 * Schema, which `tool()` takes once wrapped with `jsonSchema()` (this package does not import
 * `ai`). The AI SDK names a tool by its key in `tools`.
 *
 * @example
 * ```ts
 * import { jsonSchema, tool } from 'ai';
 * const readTool = createReadOffloadedTool({ store });
 * const tools = {
 *   [readTool.name]: tool({ ...readTool.aiSdk, inputSchema: jsonSchema<ReadOffloadedInput>(readTool.inputSchema) }),
 * };
 * ```
 */
export interface AiSdkReadOffloadedTool {
  description: string;
  inputSchema: ReadOffloadedInputSchema;
  /** As {@link ReadOffloadedTool.execute}; of the AI SDK's second argument (`{ toolCallId, messages, abortSignal }`), `abortSignal` ends the call. */
  execute(input: unknown, options?: { abortSignal?: AbortSignal | undefined }): Promise<string>;
}

/** The read tool: its definition, its `execute`, and the definition shaped for each API. */
export interface ReadOffloadedTool {
  /** The name the model calls it by (`read_offloaded` unless given another). */
  readonly name: string;
  /** What the model is told about it. */
  readonly description: string;
  /** JSON Schema of its input. */
  readonly inputSchema: ReadOffloadedInputSchema;
  /**
   * Runs one call: `input` is the model's arguments as they came ({@link ReadOffloadedInput}:
   * `{ ref, offset?, limit?, pattern? }`, or the same as JSON text), checked here, so an SDK's
   * `unknown` tool input needs no cast. Resolves to the text for the model, at most `maxChars` characters:
   * numbered lines and a footer saying how to go on, or a message (invalid input, a refusal, no
   * content at that reference, the store's failure or its silence past `signal`). Never rejects
   * for what the model sent or what the store did, so one bad call never ends the agent's loop.
   * A store built from a URL or config answers within its own timeouts; `options.signal` ends
   * the wait on any store.
   *
   * @throws {InvalidOptionError} only for an `options.signal` that is not an `AbortSignal`.
   */
  execute(input: unknown, options?: ReadOffloadedCallOptions): Promise<string>;
  /** `{ name, description, input_schema }` for the Anthropic Messages API. */
  readonly anthropic: AnthropicReadOffloadedTool;
  /** `{ type: 'function', function: { name, description, parameters } }` for OpenAI Chat Completions. */
  readonly openai: OpenAIChatReadOffloadedTool;
  /** `{ type: 'function', name, description, parameters, strict: false }` for the OpenAI Responses API. */
  readonly openaiResponses: OpenAIResponsesReadOffloadedTool;
  /** `{ description, inputSchema, execute }` for the AI SDK (wrap `inputSchema` with `jsonSchema()`). */
  readonly aiSdk: AiSdkReadOffloadedTool;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function buildDescription(maxChars: number, contextLines: number): string {
  return [
    'Reads back content that was offloaded out of this conversation to keep it short: a tool result replaced by a reference',
    'such as "[Content offloaded to: ./tool-result-abc.md]" or "[Tool result offloaded to file: ...]".',
    'Pass that reference as ref (the whole bracketed line, or just the path or URI in it).',
    'A summary of compacted messages names their archive (a ".../compact-<time>-<n>.json" reference: the messages as indented JSON) and lists offloaded results: each opens the same way.',
    `Returns numbered lines (line number, tab, text), at most ${groupDigits(maxChars)} characters per call;`,
    'the last line says whether the content goes on and how to call again for the next page.',
    'Page with offset (first line, 1-based) and limit (number of lines).',
    'To find something, pass pattern, a regular expression in RE2 syntax (like JavaScript\'s, without backreferences or lookaround; e.g. "error|warn", or "/timeout/i" for flags):',
    `you get only the matching lines, marked ":" after the number${contextLines > 0 ? `, with ${contextLines} line${contextLines === 1 ? '' : 's'} of context marked "-"` : ''}, searching from offset on.`,
    'Only references to content offloaded by this agent can be read; anything else is refused.',
  ].join(' ');
}

function buildInputSchema(): ReadOffloadedInputSchema {
  return {
    type: 'object',
    properties: {
      ref: {
        type: 'string',
        description:
          'The reference to read: the whole "[Content offloaded to: ...]" line, or just the path or URI inside it.',
      },
      offset: {
        type: 'integer',
        minimum: 1,
        description: 'First line to read, 1-based (with pattern: first line to search). Default 1.',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        description: `Most lines to return (with pattern: most matching lines). Default ${DEFAULT_READ_LIMIT}.`,
      },
      pattern: {
        type: 'string',
        description:
          'A regular expression in RE2 syntax (like JavaScript\'s, without backreferences or lookaround); returns only the matching lines, with context. E.g. "error|warn", or "/timeout/i" for flags.',
      },
    },
    required: ['ref'],
    additionalProperties: false,
  };
}

/**
 * Creates the read tool over the store the offload wrote to. The model passes a reference it
 * saw (`[Content offloaded to: ./tool-result-abc.md]`, the whole line or the path in it, or
 * the archive a compaction summary names: give the tool the store, or for the default file
 * writer the directory `<workDir>/<outputDir>`, that the compaction wrote to) and
 * gets back numbered lines, `cat -n` style, a page at a time (`offset`, `limit`) or only the
 * lines matching a `pattern` with context, never more than `maxChars` characters, ending with
 * the call that reads on. It reads only what this store wrote, under the names this package
 * gives (and with `sessionId`, only that session's); anything else is refused with a message,
 * before any read. Values are read by byte ranges: the first page of a 10 MB result reads
 * 256 KB, and the line positions it learns make the next pages cheap.
 *
 * Its own results must never be offloaded: pass its name in `excludeTools`
 * ({@link READ_OFFLOADED_TOOL_NAME}).
 *
 * @throws {InvalidOptionError} for both or neither of `store` and `outputDir`, a store that is
 * not a `ContentStore`, a bad `maxChars`, `contextLines` or `name`; {@link UnsafePathError} for
 * a `sessionId` that is not a safe path segment.
 *
 * @example
 * ```ts
 * const store = createFileStore({ dir: '.offload' });
 * const readTool = createReadOffloadedTool({ store });
 * const response = await anthropic.messages.create({ model, max_tokens, messages, tools: [...myTools, readTool.anthropic] });
 * // for each tool_use block named readTool.name:
 * const text = await readTool.execute(block.input);
 * ```
 */
export function createReadOffloadedTool(options: ReadOffloadedToolOptions): ReadOffloadedTool {
  // Read defensively: JavaScript callers may pass no options at all.
  const fields: Partial<ReadOffloadedToolOptions> = options ?? {};
  const name = fields.name ?? READ_OFFLOADED_TOOL_NAME;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new InvalidOptionError(
      `name must be 1-64 characters of [A-Za-z0-9_-] (a tool name every API accepts), got ${describeValue(name)}`,
    );
  }
  const maxChars = resolveNumberSetting(
    { option: 'maxChars', default: DEFAULT_READ_MAX_CHARS, rule: { min: MIN_READ_MAX_CHARS, integer: true } },
    fields.maxChars,
  );
  const contextLines = resolveNumberSetting(
    { option: 'contextLines', default: DEFAULT_READ_CONTEXT_LINES, rule: { min: 0, max: 20, integer: true } },
    fields.contextLines,
  );
  const sessionId = fields.sessionId === undefined ? undefined : assertSafePathSegment('sessionId', fields.sessionId);
  const store = resolveStoreTarget(
    { store: fields.store, outputDir: fields.outputDir },
    {
      both: 'the tool reads the one store the offload wrote to',
      neither: 'where the offloaded content is (the same as the offload was given)',
    },
  );

  const resolved: ResolvedReadOffloadedOptions = {
    maxChars,
    sessionId,
    contextLines,
    chunkBytes: DEFAULT_READ_CHUNK_BYTES,
    lineIndex: createLineIndex(),
    toolName: name,
    compilePattern: compileRe2Pattern,
  };
  const description = buildDescription(maxChars, contextLines);
  const inputSchema = buildInputSchema();
  const execute = async (input: unknown, callOptions?: ReadOffloadedCallOptions): Promise<string> =>
    readOffloaded(createAbortableStore(store, assertAbortSignal('signal', callOptions?.signal)), input, resolved);

  return {
    name,
    description,
    inputSchema,
    execute,
    anthropic: { name, description, input_schema: inputSchema },
    openai: { type: 'function', function: { name, description, parameters: inputSchema } },
    openaiResponses: { type: 'function', name, description, parameters: inputSchema, strict: false },
    aiSdk: {
      description,
      inputSchema,
      execute: (input, aiSdkOptions) => execute(input, { signal: aiSdkOptions?.abortSignal }),
    },
  };
}
