/**
 * The read tool on the Gemini API's wire: a function declaration added to the request's `tools`,
 * the `functionCall` parts naming it in an answer (a JSON body, the server-sent events of
 * `alt=sse`, or the JSON array a stream without it is), and the `user` content whose
 * `functionResponse` parts answer them. Pure.
 */
import type { ReadOffloadedTool } from '../api/read-offloaded-tool.js';
import { readEventPayloads, type ReadCall, type ReadToolWire } from './read-wire.js';

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The keywords of JSON Schema that Gemini's `Schema` (a subset of OpenAPI 3.0) takes; it refuses any other. */
const SCHEMA_KEYWORDS = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'items',
  'properties',
  'required',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
]);

/** `schema` as Gemini's `Schema`: its types in Gemini's names (`OBJECT`, `STRING`, ...), keywords it has not dropped. */
function toGeminiSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const converted: Fields = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!SCHEMA_KEYWORDS.has(keyword)) continue;
    if (keyword === 'type' && typeof value === 'string') converted.type = value.toUpperCase();
    else if (keyword === 'properties' && isRecord(value))
      converted.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, toGeminiSchema(property)]),
      );
    else if (keyword === 'items') converted.items = toGeminiSchema(value);
    else converted[keyword] = value;
  }
  return converted;
}

/** The function declarations of one entry of a request's `tools` (the REST API takes both spellings). */
function declarationsOf(tool: unknown): unknown[] {
  if (!isRecord(tool)) return [];
  const declarations = tool.functionDeclarations ?? tool.function_declarations;
  return Array.isArray(declarations) ? declarations : [];
}

function isPlainText(part: Fields): boolean {
  return typeof part.text === 'string' && Object.keys(part).every((key) => key === 'text' || key === 'thought');
}

/**
 * The parts of the model's turn, from the one candidate of a whole answer or of every chunk of a
 * stream, in order: a text split between two chunks joined into one part (a piece carrying
 * anything else, a `thoughtSignature`, stays a part of its own); a whole answer's parts as they are. `undefined` for an answer with several
 * candidates (no one turn to go on with), or events cut before a chunk said why it finished.
 */
function rebuildModelParts(chunks: readonly unknown[], events: boolean): Fields[] | undefined {
  const parts: Fields[] = [];
  let finished = false;
  for (const chunk of chunks) {
    if (!isRecord(chunk) || !Array.isArray(chunk.candidates)) continue;
    for (const candidate of chunk.candidates) {
      if (!isRecord(candidate)) continue;
      if ((candidate.index ?? 0) !== 0) return undefined;
      if (typeof candidate.finishReason === 'string') finished = true;
      const content = candidate.content;
      if (!isRecord(content) || !Array.isArray(content.parts)) continue;
      const pieces = content.parts.filter(isRecord);
      const [first, ...rest] = pieces;
      if (first === undefined) continue;
      // a chunk goes on where the one before stopped: only there is a text piece of one part
      const last = parts.at(-1);
      if (last !== undefined && isPlainText(last) && isPlainText(first) && last.thought === first.thought)
        parts[parts.length - 1] = { ...last, text: `${last.text as string}${first.text as string}` };
      else parts.push({ ...first });
      parts.push(...rest.map((part) => ({ ...part })));
    }
  }
  return finished || !events ? parts : undefined;
}

/** The read tool as a Gemini function declaration, its own entry of a request's `tools`. */
function buildGeminiTool(tool: ReadOffloadedTool): Fields {
  return {
    functionDeclarations: [
      { name: tool.name, description: tool.description, parameters: toGeminiSchema(tool.inputSchema) },
    ],
  };
}

/**
 * The read tool on Gemini's `generateContent` and `streamGenerateContent`. The declaration goes in
 * a `tools` entry of its own, after the agent's: their entries keep their bytes and their order.
 */
export function createGeminiWire(tool: ReadOffloadedTool): ReadToolWire {
  const definition = buildGeminiTool(tool);
  const isRead = (part: Fields): boolean => isRecord(part.functionCall) && part.functionCall.name === tool.name;
  return {
    definition,
    addTool(tools) {
      const list = Array.isArray(tools) ? tools : [];
      const named = list.some((entry) =>
        declarationsOf(entry).some((declaration) => isRecord(declaration) && declaration.name === tool.name),
      );
      return named ? undefined : [...list, definition];
    },
    findReads(answer, streamed) {
      let chunks: unknown[];
      if (streamed) chunks = readEventPayloads(answer);
      else {
        const body = parseJson(answer);
        // a stream without `alt=sse` is one JSON array of the chunks
        chunks = Array.isArray(body) ? body : [body];
      }
      // a JSON array that parses is a stream that ended: only events can stop short of the finish
      const parts = rebuildModelParts(chunks, streamed);
      if (parts === undefined || !parts.some(isRead)) return undefined;
      const kept = parts.filter((part) => !isRecord(part.functionCall) || isRead(part));
      // Gemini signs a turn's first call; with that call (the agent's) left out, the first read carries the signature
      const firstCall = parts.find((part) => isRecord(part.functionCall));
      const firstRead = kept.findIndex(isRead);
      if (
        firstCall !== undefined &&
        !isRead(firstCall) &&
        typeof firstCall.thoughtSignature === 'string' &&
        kept[firstRead]!.thoughtSignature === undefined
      )
        kept[firstRead] = { ...kept[firstRead], thoughtSignature: firstCall.thoughtSignature };
      const calls = kept.filter(isRead).map((part): ReadCall => {
        const call = part.functionCall as Fields;
        return { id: typeof call.id === 'string' ? call.id : undefined, input: call.args ?? {} };
      });
      return { calls, turn: [{ role: 'model', parts: kept }] };
    },
    writeResults: (calls, results) => [
      {
        role: 'user',
        parts: calls.map((call, index) => ({
          functionResponse: {
            ...(call.id === undefined ? {} : { id: call.id }),
            name: tool.name,
            response: { output: results[index] },
          },
        })),
      },
    ],
  };
}
