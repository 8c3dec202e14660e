/**
 * Shared pieces of the context manager's unit tests: the core manager over a memory store, a
 * deterministic tokenizer (a token per 4 characters), a compaction port that records its calls,
 * and small history builders.
 */
import { createHash } from 'node:crypto';
import { createEmptyCompactStats } from '../../../../src/core/compact/stats.js';
import type { CompactResult } from '../../../../src/core/compact/compact.js';
import { selectCostModel, type CostModel } from '../../../../src/core/cost/cost-model.js';
import type { MessageFormat } from '../../../../src/core/format.js';
import {
  createContextManagerWith,
  type CompactCall,
  type ContextManagerPorts,
} from '../../../../src/core/manage/context-manager.js';
import type { OffloadTiming, ResolvedContextManagerOptions } from '../../../../src/core/manage/manager-options.js';
import type { ResolvedPreview } from '../../../../src/core/offload/offload-reference.js';
import type { ContextManager, ContextManagerHooks } from '../../../../src/core/manage/types.js';
import { resolveBatchOffloadOptions } from '../../../../src/core/options/offload-options.js';
import type { ContentStore, Logger, TokenCounter } from '../../../../src/core/ports.js';
import type { ContentBlock, Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import { formats } from '../../../../src/formats/index.js';
import { sha256Hashing } from '../../../../src/infrastructure/sha256-hashing.js';

/** A token per 4 characters: counts anyone can check by hand. */
export const quarterCounter: TokenCounter = { count: (text) => Math.ceil(text.length / 4) };

/** A logger that keeps its warnings. */
export interface RecordingLogger extends Logger {
  warnings: string[];
}

export function createRecordingLogger(): RecordingLogger {
  const warnings: string[] = [];
  return { warnings, warn: (message) => void warnings.push(message) };
}

/** A compaction port: records each call and answers with `answer(messages, call)`. */
export interface RecordingCompact {
  calls: Array<{ messages: readonly Message[]; call: CompactCall }>;
  compact: ContextManagerPorts['compact'];
}

/** A compaction that keeps the leading system messages and puts one summary pair after them. */
export function summarizeTo(summary: string): (messages: readonly Message[]) => CompactResult {
  return (messages) => {
    let head = 0;
    while (messages[head]?.role === 'system') head += 1;
    const output: Message[] = [
      ...messages.slice(0, head),
      { role: 'user', content: `[Conversation compressed]\n\n${summary}` },
      { role: 'assistant', content: 'Understood.' },
    ];
    return {
      messages: output,
      compacted: true,
      stats: {
        ...createEmptyCompactStats(),
        compactedMessageCount: messages.length - head,
        retainedMessageCount: head,
      },
      originalMessagesPath: 'memory://default/s1/compact-2026-01-01T00-00-00Z-1.json',
      archiveReference: 'memory://default/s1/compact-2026-01-01T00-00-00Z-1.json',
      summary,
      summarizer: 'custom',
    };
  };
}

export function createRecordingCompact(
  answer: (messages: readonly Message[], call: CompactCall) => CompactResult | Promise<CompactResult> = summarizeTo(
    'Summary of the work so far.',
  ),
): RecordingCompact {
  const calls: RecordingCompact['calls'] = [];
  return {
    calls,
    compact: async (messages, call) => {
      calls.push({ messages, call });
      return answer(messages, call);
    },
  };
}

/** Settings of a manager in a unit test; everything has a small default. */
export interface TestManagerSettings<M = Message> {
  store?: ContentStore;
  compact?: RecordingCompact;
  logger?: Logger;
  format?: MessageFormat<M>;
  sessionId?: string;
  threshold?: number;
  charThreshold?: number;
  ratioThreshold?: number;
  keepRecent?: number;
  excludeTools?: string[];
  contextTokenLimit?: number;
  compactThresholdRatio?: number;
  initialCalibrationRatio?: number;
  resumeMessage?: string;
  hooks?: ContextManagerHooks;
  maxRestoreFiles?: number;
  maxRestoreTokensPerFile?: number;
  maxRestoreTokensTotal?: number;
  summaryMaxWords?: number;
  /** Tools that read files. */
  readToolNames?: string[];
  /** When results go to the store (these tests' default: `'on-arrival'`). */
  offloadTiming?: OffloadTiming;
  maxInlineResultChars?: number;
  agedBudgetChars?: number;
  cut?: ResolvedPreview;
  /** Called with each text the tokenizer counts. */
  onCount?: (text: string) => void;
  /** How input is priced (these tests' default: Anthropic's). */
  costModel?: CostModel;
}

/** The resolved options a unit test runs the core with. */
export function buildResolvedOptions<M = Message>(
  settings: TestManagerSettings<M> = {},
): ResolvedContextManagerOptions<M> {
  const batch = {
    ...resolveBatchOffloadOptions(
      {
        charThreshold: settings.charThreshold ?? 100,
        ratioThreshold: settings.ratioThreshold ?? 0.2,
        keepRecent: settings.keepRecent ?? 0,
        excludeTools: settings.excludeTools ?? [],
      },
      {},
    ),
    reference: 'absolute' as const,
  };
  return {
    format: settings.format ?? (formats.anthropic as unknown as MessageFormat<M>),
    sessionId: settings.sessionId ?? 's1',
    contextTokenLimit: settings.contextTokenLimit ?? 200_000,
    offload: {
      timing: settings.offloadTiming ?? 'on-arrival',
      directThreshold: settings.threshold ?? 1000,
      excludeTools: batch.excludeTools,
      readToolNames: new Set(settings.readToolNames ?? ['read_file']),
      preview: null,
      aging: {
        maxInlineResultChars: settings.maxInlineResultChars ?? 20_000,
        agedBudgetChars: settings.agedBudgetChars ?? 4000,
        minAgedResultChars: settings.threshold ?? 1000,
        cut: settings.cut ?? { headChars: 100, tailChars: 200 },
      },
      batch,
    },
    compaction: {
      triggerRatio: settings.compactThresholdRatio ?? 0.92,
      budgets: {
        summaryMaxWords: settings.summaryMaxWords ?? 1200,
        maxRestoreFiles: settings.maxRestoreFiles ?? 5,
        maxRestoreTokensPerFile: settings.maxRestoreTokensPerFile ?? 5000,
        maxRestoreTokensTotal: settings.maxRestoreTokensTotal ?? 50_000,
      },
      resumeMessage: settings.resumeMessage,
    },
    initialCalibrationRatio: settings.initialCalibrationRatio ?? 1,
    costModel: settings.costModel ?? selectCostModel({ provider: 'anthropic' }),
    hooks: settings.hooks ?? {},
  };
}

/** A core manager over a memory store (or `settings.store`) and the quarter counter. */
export function createTestManager<M = Message>(
  settings: TestManagerSettings<M> = {},
): {
  manager: ContextManager<M>;
  store: ContentStore;
  compact: RecordingCompact;
  logger: Logger;
} {
  const store = settings.store ?? createMemoryStore();
  const compact = settings.compact ?? createRecordingCompact();
  const logger = settings.logger ?? createRecordingLogger();
  const manager = createContextManagerWith(buildResolvedOptions(settings), {
    store,
    tokenCounter:
      settings.onCount === undefined
        ? quarterCounter
        : { count: (text) => (settings.onCount?.(text), quarterCounter.count(text)) },
    tokenizerId: 'quarter',
    countsAtMostUtf8Bytes: true,
    hashing: sha256Hashing,
    logger,
    compact: compact.compact,
  });
  return { manager, store, compact, logger };
}

/** `count` characters of readable text. */
export function textOf(count: number, word = 'lorem'): string {
  return `${word} `.repeat(Math.ceil(count / (word.length + 1))).slice(0, count);
}

/** One tool round: the assistant's call and the user message with its result. */
export function toolTurn(id: string, result: string | ContentBlock[], toolName = 'bash'): [Message, Message] {
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Calling ${toolName}.` },
        { type: 'tool_use', id, name: toolName, input: { command: id } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
}

/** The content of the first tool_result in `message`. */
export function resultContent(message: Message | undefined): unknown {
  const blocks = message?.content;
  if (!Array.isArray(blocks)) return undefined;
  const block = blocks.find((candidate) => candidate.type === 'tool_result') as { content?: unknown } | undefined;
  return block?.content;
}

/** Every key in `store`, sorted. */
export async function listKeys(store: ContentStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list('')) keys.push(key);
  return keys.sort();
}

/** A store that counts its writes, over a memory store. */
export function createCountingStore(): ContentStore & { writes: string[] } {
  const inner = createMemoryStore();
  const writes: string[] = [];
  return {
    ...inner,
    writes,
    kind: inner.kind,
    putIfAbsent: (key, content) => {
      writes.push(key);
      return inner.putIfAbsent(key, content);
    },
    put: (key, content) => {
      writes.push(key);
      return inner.put(key, content);
    },
  };
}

export const SYSTEM: Message = { role: 'system', content: 'You are a careful coding agent.' };
export const TASK: Message = { role: 'user', content: 'Fix the failing test in src/date.ts.' };

/** The 16 hex digits of sha256 a manager's content name carries. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The key of a direct offload by the manager: `<session>/<id>-<hash>.md`. */
export function directKey(id: string, text: string, session = 's1'): string {
  return `${session}/${id}-${contentHash(text)}.md`;
}

/** The key of a batch offload by the manager: `<session>/tool-result-<id>-<hash>.md`. */
export function batchKey(id: string, text: string, session = 's1'): string {
  return `${session}/tool-result-${id}-${contentHash(text)}.md`;
}

/** The reference line of a direct offload into the memory store. */
export function directReference(key: string): string {
  return `[Tool result offloaded to file: memory://default/${key}]`;
}

/** The reference line of a batch offload into the memory store. */
export function batchReference(key: string): string {
  return `[Content offloaded to: memory://default/${key}]`;
}

/** One call a {@link createTracingStore} saw. */
export interface StoreCall {
  operation: 'putIfAbsent' | 'put' | 'get' | 'stat' | 'list' | 'delete' | 'holds';
  key: string;
}

/** A store that records every call it gets (over `inner`, a memory store by default), and can be made to fail. */
export function createTracingStore(
  inner: ContentStore = createMemoryStore(),
): ContentStore & { calls: StoreCall[]; failReads: boolean; reads(): StoreCall[] } {
  const calls: StoreCall[] = [];
  const traced = {
    calls,
    failReads: false,
    reads: () =>
      calls.filter(
        (call) =>
          call.operation === 'get' ||
          call.operation === 'list' ||
          call.operation === 'stat' ||
          call.operation === 'holds',
      ),
    kind: inner.kind,
    putIfAbsent: (key: string, content: string | Iterable<string>) => {
      calls.push({ operation: 'putIfAbsent', key });
      return inner.putIfAbsent(key, content);
    },
    put: (key: string, content: string) => {
      calls.push({ operation: 'put', key });
      return inner.put(key, content);
    },
    get: (key: string, range?: { offset?: number; length?: number }) => {
      calls.push({ operation: 'get', key });
      if (traced.failReads) return Promise.reject(new Error('connection reset'));
      return inner.get(key, range);
    },
    stat: (key: string) => {
      calls.push({ operation: 'stat', key });
      return inner.stat(key);
    },
    list: (prefix: string) => {
      calls.push({ operation: 'list', key: prefix });
      if (traced.failReads) {
        return {
          [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('connection reset')) }),
        } as AsyncIterable<string>;
      }
      return inner.list(prefix);
    },
    delete: (key: string) => {
      calls.push({ operation: 'delete', key });
      return inner.delete(key);
    },
    referenceFor: (key: string) => inner.referenceFor(key),
    keyFor: (reference: string) => inner.keyFor(reference),
  };
  return traced;
}
