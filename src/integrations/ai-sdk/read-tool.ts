/**
 * The read tool (`read_offloaded`) as an AI SDK tool. Its input schema is a Standard Schema with
 * a JSON Schema converter, which `ai` 6 and 7 both accept as a tool's `inputSchema`, so the tool
 * is built without importing `ai` (no `jsonSchema()` call needed).
 */
import type { ReadOffloadedInput, ReadOffloadedInputSchema, ReadOffloadedTool } from '../../api/read-offloaded-tool.js';
import { resolveReadTool, type IntegrationContextManager } from '../manager-source.js';
import { NEVER_OFFLOAD } from './types.js';

/** A Standard Schema (`~standard`, version 1) that also converts to JSON Schema, as the AI SDK reads tool inputs. */
export interface AiSdkInputSchema<INPUT> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    /** Accepts every value: the tool checks its input itself and answers the model with what is wrong. */
    readonly validate: (value: unknown) => { readonly value: INPUT };
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** The read tool in the AI SDK's tool shape: put it in `tools` under {@link AiSdkReadTool.name}. */
export interface AiSdkReadTool {
  /** The name the model should call it by (`read_offloaded` unless the read tool was given another): use it as its key in `tools`. */
  readonly name: string;
  /** What the model is told about the tool. */
  readonly description: string;
  /** The input `{ ref, offset?, limit?, pattern? }` as a schema the AI SDK accepts. */
  readonly inputSchema: AiSdkInputSchema<ReadOffloadedInput>;
  /**
   * Reads one page; never rejects for what the model sent or what the store did. Of the AI SDK's
   * second argument (`{ toolCallId, messages, abortSignal }`), `abortSignal` ends the call.
   */
  execute(input: ReadOffloadedInput, options?: { abortSignal?: AbortSignal | undefined }): Promise<string>;
  /** Marks the tool so {@link offloadTools} never offloads its pages. */
  readonly [NEVER_OFFLOAD]: true;
}

function buildInputSchema(schema: ReadOffloadedInputSchema): AiSdkInputSchema<ReadOffloadedInput> {
  const toJsonSchema = (): Record<string, unknown> => structuredClone(schema);
  return {
    '~standard': {
      version: 1,
      vendor: 'agent-context-offload',
      validate: (value: unknown) => ({ value: value as ReadOffloadedInput }),
      jsonSchema: { input: toJsonSchema, output: toJsonSchema },
    },
  };
}

/**
 * The read tool as an AI SDK tool, ready for `tools`: `{ description, inputSchema, execute }`,
 * the same object `tool({...})` would return. The model passes a reference it saw
 * (`[Content offloaded to: ...]`) and gets the content back a page at a time, or only the lines
 * matching a pattern. Its results are never offloaded by {@link offloadTools}.
 *
 * @param source - the context manager (its `readTool`, over the manager's own store), or a read
 * tool made with `createReadOffloadedTool({ store | outputDir })`.
 * @throws {InvalidOptionError} when `source` is neither.
 *
 * @example
 * ```ts
 * const readTool = createReadTool(manager);
 * const tools = offloadTools({ ...myTools, [readTool.name]: readTool }, manager);
 * ```
 */
export function createReadTool(source: IntegrationContextManager | ReadOffloadedTool): AiSdkReadTool {
  const readTool = resolveReadTool(source);
  return {
    name: readTool.name,
    description: readTool.description,
    inputSchema: buildInputSchema(readTool.inputSchema),
    execute: (input: ReadOffloadedInput, options?: { abortSignal?: AbortSignal | undefined }) =>
      readTool.execute(input, { signal: options?.abortSignal }),
    [NEVER_OFFLOAD]: true,
  };
}
