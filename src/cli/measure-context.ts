/**
 * The figures of `agent-context count`, every one computed by the library: token counts by
 * `countTokens`/`estimateTokens`, the offload forecast by `planOffload`, the trigger by
 * `shouldCompact`. This file only groups them (by role, by tool, largest results).
 */
import { countTokens, estimateTokens, planOffload, shouldCompact } from './library-subset.js';
import type { ContentBlock, Message } from '../index.js';
import { resolveCompactionTrigger } from './compaction-trigger.js';
import { createMemoizedCounter } from './memoized-counter.js';
import type { CompactionTrigger } from './compaction-trigger.js';
import type { Transcript, TranscriptShape } from '../formats/transcripts/transcript.js';
import { defaultTokenCounter } from '../infrastructure/tokenizer.js';
import { DEFAULT_TOKEN_SAFETY_FACTOR } from '../core/options/defaults.js';

/** Tokens of one tool: its calls' inputs plus its results. */
interface ToolTokens {
  /** Number of `tool_use` calls. */
  calls: number;
  /** Tokens of the calls (name and JSON input). */
  inputTokens: number;
  /** Tokens of the results. */
  resultTokens: number;
  /** `inputTokens + resultTokens`. */
  tokens: number;
}

/** One of the largest tool results. */
interface ToolResultSize {
  /** The block's `tool_use_id`. */
  toolUseId: string;
  /** The tool that produced it, or `null` when no `tool_use` with that id precedes it. */
  tool: string | null;
  /** Tokens of the block. */
  tokens: number;
  /** Index of the message holding it. */
  messageIndex: number;
  /** First line of its text with words in it (else the first non-blank one), trimmed, at most 120 characters. */
  firstLine: string;
}

/** What a batch offload at the current thresholds would do (from `planOffload`). */
interface OffloadForecast {
  /** Char threshold in force (flag, env `OFFLOAD_CHAR_THRESHOLD`, or default). */
  charThreshold: number;
  /** Ratio threshold in force (flag, env `OFFLOAD_RATIO_THRESHOLD`, or default). */
  ratioThreshold: number;
  /** Characters of the history, as the ratio gate counts them. */
  totalChars: number;
  /** Characters of the results that qualify. */
  offloadableChars: number;
  /** `offloadableChars / totalChars`. */
  ratio: number;
  /** Tool results in the history. */
  toolResultCount: number;
  /** Results that qualify. */
  candidateCount: number;
  /** Whether the offload would run (the gate passes). */
  wouldOffload: boolean;
  /** Why it would not, or `null`. */
  skippedReason: string | null;
  /** Characters it would free (0 when it would skip). */
  freedChars: number;
  /** Tokens of the results it would offload (0 when it would skip); each leaves a short reference. */
  freedTokens: number;
}

/** Whether compaction would trigger (from `shouldCompact`), and how close the history is. */
interface CompactionForecast extends CompactionTrigger {
  /** `totalTokens / contextTokenLimit`. */
  share: number;
  /** Whether `compactMessages` would compact now (without `force`). */
  wouldTrigger: boolean;
}

/** Everything `count` reports; `count --json` prints exactly this object. */
export interface ContextMeasurement {
  /** How the file holds the history: `json`, `request-body`, `jsonl` or `claude-code`. */
  format: TranscriptShape;
  /** The message format of the history: `anthropic`, `openai-chat`, `openai-responses`, `openai-agents`, `ai-sdk`, `langchain`, `gemini`. */
  messageFormat: string;
  /** Messages in the history (a request body's `system` counts as one). */
  messageCount: number;
  /** Tokens of the history, plus a request body's tool definitions. */
  totalTokens: number;
  /** Tokens per role; `tools` (a request body's tool definitions) only when present. Sums to `totalTokens`. */
  byRole: { system: number; user: number; assistant: number; tools?: number };
  /** Tokens per tool name, largest first. Results with no matching call are under `(unmatched)`. */
  byTool: Record<string, ToolTokens>;
  /** The 10 largest tool results, largest first. */
  largestToolResults: ToolResultSize[];
  /** What batch offload would do at the current thresholds. */
  offload: OffloadForecast;
  /** Whether compaction would trigger. */
  compaction: CompactionForecast;
}

/** Options of {@link measureContext}: what `planOffload` and the trigger take. */
export interface MeasureContextOptions {
  /** Char threshold for the forecast (else env, else default). */
  charThreshold?: number | undefined;
  /** Ratio threshold for the forecast (else env, else default). */
  ratioThreshold?: number | undefined;
  /** Tools excluded from offload. */
  excludeTools?: readonly string[] | undefined;
  /** Context window (else env `CONTEXT_TOKEN_LIMIT`, else default). */
  contextTokenLimit?: number | undefined;
  /** Trigger share (else env `COMPACT_THRESHOLD_RATIO`, else default). */
  compactThresholdRatio?: number | undefined;
}

/** Key of results whose tool is unknown in {@link ContextMeasurement.byTool}. */
export const UNMATCHED_TOOL = '(unmatched)';
const LARGEST_RESULT_COUNT = 10;
const FIRST_LINE_MAX_CHARS = 120;

function extractFirstLine(content: unknown): string {
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const textBlock = content.find(
      (block: unknown) => typeof (block as { text?: unknown } | null)?.text === 'string',
    ) as { text: string } | undefined;
    text = textBlock?.text ?? '';
  }
  // The first line with words: a file that opens with "/**" or "{" says more on the next one.
  const lines = text.split('\n', 50);
  const line =
    lines.find((candidate) => /[\p{L}\p{N}]{3}/u.test(candidate)) ??
    lines.find((candidate) => candidate.trim() !== '') ??
    '';
  const characters = Array.from(line.trim());
  return characters.length > FIRST_LINE_MAX_CHARS
    ? `${characters.slice(0, FIRST_LINE_MAX_CHARS - 3).join('')}...`
    : characters.join('');
}

/** Tokens of a request body's tool definitions (0 for other formats). */
export function countToolDefinitionTokens(transcript: Pick<Transcript, 'toolDefinitions'>): number {
  return transcript.toolDefinitions === undefined ? 0 : estimateTokens(JSON.stringify(transcript.toolDefinitions));
}

/**
 * Tool definitions are billed as input but are not messages: they enter the library's counts
 * as the fixed part of the prompt, the way a provider's usage figure (`lastUsage`, covering
 * no message) carries them. Spread into `countTokens`, `shouldCompact` or `compactMessages` options.
 */
export function createToolDefinitionUsage(toolDefinitionTokens: number): {
  lastUsage?: { inputTokens: number; messageCount: number };
} {
  return toolDefinitionTokens > 0 ? { lastUsage: { inputTokens: toolDefinitionTokens, messageCount: 0 } } : {};
}

/**
 * Measures a transcript: tokens in all, by role, by tool, the largest tool results, the
 * offload forecast and the compaction trigger.
 *
 * @throws {ContextError} `INVALID_OPTION` for a threshold (flag or env) out of range.
 */
export function measureContext(
  transcript: Pick<Transcript, 'shape' | 'format' | 'messages' | 'toolDefinitions'>,
  options: MeasureContextOptions = {},
): ContextMeasurement {
  const { messages } = transcript;
  const tokenCounter = createMemoizedCounter(defaultTokenCounter);
  // A block's tokens are its message's tokens minus those of the same message without it.
  const emptyMessageTokens = countTokens([{ role: 'user', content: [] }], { tokenCounter });
  const countBlock = (block: ContentBlock): number =>
    countTokens([{ role: 'user', content: [block] }], { tokenCounter }) - emptyMessageTokens;

  const byRole: ContextMeasurement['byRole'] = { system: 0, user: 0, assistant: 0 };
  const toolNames = new Map<string, string>();
  const tools = new Map<string, ToolTokens>();
  const results: ToolResultSize[] = [];
  const toolEntry = (name: string): ToolTokens => {
    let entry = tools.get(name);
    if (entry === undefined) {
      entry = { calls: 0, inputTokens: 0, resultTokens: 0, tokens: 0 };
      tools.set(name, entry);
    }
    return entry;
  };

  messages.forEach((message: Message, messageIndex) => {
    byRole[message.role] += countTokens([message], { tokenCounter });
    if (typeof message.content === 'string') return;
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const call = block as { id: string; name: string };
        toolNames.set(call.id, call.name);
        const entry = toolEntry(call.name);
        const tokens = countBlock(block);
        entry.calls += 1;
        entry.inputTokens += tokens;
        entry.tokens += tokens;
      } else if (block.type === 'tool_result') {
        const result = block as { tool_use_id: string; content?: unknown };
        const tool = toolNames.get(result.tool_use_id) ?? null;
        const tokens = countBlock(block);
        const entry = toolEntry(tool ?? UNMATCHED_TOOL);
        entry.resultTokens += tokens;
        entry.tokens += tokens;
        results.push({
          toolUseId: result.tool_use_id,
          tool,
          tokens,
          messageIndex,
          firstLine: extractFirstLine(result.content),
        });
      }
    }
  });

  const toolDefinitionTokens = countToolDefinitionTokens(transcript);
  if (transcript.toolDefinitions !== undefined) byRole.tools = toolDefinitionTokens;
  const lastUsage = createToolDefinitionUsage(toolDefinitionTokens);
  const totalTokens = countTokens(messages, { tokenCounter, ...lastUsage });

  const plan = planOffload(messages, {
    charThreshold: options.charThreshold,
    ratioThreshold: options.ratioThreshold,
    excludeTools: options.excludeTools,
  });
  const wouldOffload = plan.skippedReason === null;
  const candidateKeys = new Set(
    plan.candidates.map((candidate) => `${candidate.messageIndex}:${candidate.blockIndex}`),
  );
  let freedTokens = 0;
  if (wouldOffload) {
    messages.forEach((message, messageIndex) => {
      if (typeof message.content === 'string') return;
      message.content.forEach((block, blockIndex) => {
        if (candidateKeys.has(`${messageIndex}:${blockIndex}`)) freedTokens += countBlock(block);
      });
    });
  }

  const trigger = resolveCompactionTrigger({
    contextTokenLimit: options.contextTokenLimit,
    compactThresholdRatio: options.compactThresholdRatio,
  });
  // what `compactMessages` would do: it scales local counts by its own `tokenSafetyFactor` (1 by default), not by a provider's margin
  const wouldTrigger = shouldCompact(messages, {
    tokenSafetyFactor: DEFAULT_TOKEN_SAFETY_FACTOR,
    tokenCounter,
    contextTokenLimit: trigger.contextTokenLimit,
    compactThresholdRatio: trigger.compactThresholdRatio,
    ...lastUsage,
  });

  const byTool = Object.fromEntries([...tools.entries()].sort((left, right) => right[1].tokens - left[1].tokens));
  const largestToolResults = [...results]
    .sort((left, right) => right.tokens - left.tokens)
    .slice(0, LARGEST_RESULT_COUNT);
  return {
    format: transcript.shape,
    messageFormat: transcript.format.name,
    messageCount: messages.length,
    totalTokens,
    byRole,
    byTool,
    largestToolResults,
    offload: {
      charThreshold: plan.charThreshold,
      ratioThreshold: plan.ratioThreshold,
      totalChars: plan.totalChars,
      offloadableChars: plan.offloadableChars,
      ratio: plan.ratio,
      toolResultCount: results.length,
      candidateCount: plan.candidates.length,
      wouldOffload,
      skippedReason: plan.skippedReason,
      freedChars: wouldOffload ? plan.offloadableChars : 0,
      freedTokens,
    },
    compaction: {
      ...trigger,
      share: totalTokens / trigger.contextTokenLimit,
      wouldTrigger,
    },
  };
}
