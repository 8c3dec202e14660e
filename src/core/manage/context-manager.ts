/**
 * The context manager: one call per model request. In order, each step only when needed:
 * (1) direct offload of tool results the manager has not seen before; (2) batch offload when
 * the ratio gate passes; (3) when the history is still over the compaction trigger, batch
 * offload without the gate, then compaction fitted to half of the trigger. Decisions already
 * taken are kept (a message seen before comes back as it went out; an offloaded result keeps
 * its reference), so the prompt prefix stays byte-stable between calls. Pure: the store, the
 * tokenizer, the logger and compaction itself come in as ports.
 */
import { throwIfAborted } from '../abort.js';
import type { CompactResult } from '../compact/compact.js';
import { partitionMessages } from '../compact/partition.js';
import { describeError, describeValue, InvalidMessageError, InvalidOptionError } from '../errors.js';
import type { ContentStore, Logger, TokenCounter } from '../ports.js';
import { compactThresholdTokens } from '../tokens.js';
import { recordToolNames } from '../tool-names.js';
import type { Message } from '../types.js';
import { assertMessage } from '../validate-messages.js';
import { createCompactionBackoff } from './backoff.js';
import { createTokenCalibration } from './calibration.js';
import { createDecisionLog } from './decisions.js';
import { createLocalCounts, estimateHistoryTokens, type EstimateAnchor } from './history-estimate.js';
import type { ResolvedContextManagerOptions } from './manager-options.js';
import { offloadToolOutput } from './offload-output.js';
import { applyDecisions, mayHoldDecidedResults, offloadNewResults, offloadOlderResults, type OffloadStepContext } from './offload-steps.js';
import { passesRatioGate, summarizeMessageChars, type MessageChars } from './ratio-gate.js';
import { fitCompactBudgets } from './room-to-spare.js';
import { createSessionStoreView } from './session-store.js';
import type {
  CompactBudgets,
  ContextAction,
  ContextCompactAction,
  ContextManager,
  ContextOffloadAction,
  PrepareOptions,
  PrepareResult,
} from './types.js';
import { checkLastUsage, learnFromUsage, startsWithSame, type CheckedUsage, type UsageAnchor } from './usage-anchor.js';

/** Characters per token assumed for a result offloaded before it was ever counted (tokensBefore only). */
const CHARS_PER_TOKEN_ESTIMATE = 4;

/** One compaction request: the budgets it runs with, and the caller's abort signal. */
export interface CompactCall extends CompactBudgets {
  signal: AbortSignal | undefined;
}

/** What the manager works through. */
export interface ContextManagerPorts {
  /** Where offloaded content goes (`<sessionId>/...` keys). */
  store: ContentStore;
  /** The local tokenizer. */
  tokenCounter: TokenCounter;
  /** Whether the tokenizer never counts more tokens than a text has UTF-8 bytes (a byte-level BPE such as o200k): then a cheap bound can stand in for a count far below the trigger. */
  countsAtMostUtf8Bytes: boolean;
  /** Warnings: ignored usage, failed compactions, hooks that threw. */
  logger: Logger;
  /** Compacts a history unconditionally (the manager has decided), with these budgets. */
  compact(messages: readonly Message[], call: CompactCall): Promise<CompactResult>;
}

/** The history a compaction replaced, and what replaced it. */
interface CompactionMemo {
  input: readonly Message[];
  output: readonly Message[];
}

/** The caller's object for a changed message, and the canonical message it was built from. */
interface FormatOutput<M> {
  canonical: Message;
  output: M;
}

function readPrepareOptions(options: unknown): PrepareOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(`prepare options must be an object { lastUsage?, signal? }, got ${describeValue(options)}`);
  }
  const { signal } = options as PrepareOptions;
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean')) {
    throw new InvalidOptionError(`signal must be an AbortSignal, got ${describeValue(signal)}`);
  }
  return options as PrepareOptions;
}

/**
 * Creates a context manager over resolved options and ports. `prepare` calls run one at a time
 * (a second call waits for the first), so the decisions of one are seen by the next.
 */
export function createContextManagerWith<M>(options: ResolvedContextManagerOptions<M>, ports: ContextManagerPorts): ContextManager<M> {
  const { format, hooks } = options;
  const { logger } = ports;
  const toolNames = new Map<string, string>();
  const decisions = createDecisionLog();
  const steps: OffloadStepContext = {
    store: ports.store,
    sessionStore: createSessionStoreView(ports.store, options.sessionId),
    sessionId: options.sessionId,
    threshold: options.threshold,
    excludeTools: options.excludeTools,
    preview: options.preview,
    batch: options.batch,
    toolNames,
    decisions,
  };
  const calibration = createTokenCalibration(options.initialCalibrationRatio);
  const backoff = createCompactionBackoff();
  const counts = createLocalCounts(ports.tokenCounter, ports.countsAtMostUtf8Bytes);
  const triggerTokens = compactThresholdTokens(options.contextTokenLimit, options.compactThresholdRatio);
  const targetTokens = Math.floor(triggerTokens / 2);
  // the message compaction appends, as it builds it: counted (once) in what a compaction keeps
  const resumeMessage: Message | undefined = options.resumeMessage === undefined ? undefined : { role: 'user', content: options.resumeMessage };
  // message (as given, or as sent) → the message it became; outputs map to themselves
  const seen = new WeakMap<Message, Message>();
  const charSummaries = new WeakMap<Message, MessageChars>();
  const formatOutputs = new WeakMap<object, FormatOutput<M>>();
  let anchor: UsageAnchor | undefined;
  let memo: CompactionMemo | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const charsOf = (message: Message): MessageChars => {
    let summary = charSummaries.get(message);
    if (summary === undefined) {
      summary = summarizeMessageChars(message, toolNames, options.batch);
      charSummaries.set(message, summary);
    }
    return summary;
  };

  async function notify(name: 'onOffload' | 'onCompact', call: () => unknown): Promise<void> {
    try {
      await call();
    } catch (error) {
      logger.warn(`context manager: the ${name} hook threw (${describeError(error)}); the step it reported stands`);
    }
  }

  async function reportOffload(action: ContextOffloadAction | undefined, actions: ContextAction[]): Promise<boolean> {
    if (action === undefined) return false;
    actions.push(action);
    const onOffload = hooks.onOffload;
    if (onOffload !== undefined) await notify('onOffload', () => onOffload(action));
    return true;
  }

  /** The usage figure of this call, checked; a figure that does not fit is reported and dropped. */
  function checkUsage(lastUsage: unknown, historyLength: number, actions: ContextAction[]): CheckedUsage | undefined {
    if (lastUsage === undefined) return undefined;
    const checked = checkLastUsage(lastUsage, historyLength);
    if ('usage' in checked) return checked.usage;
    logger.warn(`context manager: lastUsage ignored, counting locally instead: ${checked.reason}`);
    actions.push({ type: 'usage-ignored', reason: checked.reason });
    return undefined;
  }

  /**
   * The working history: a compaction's output in place of the history it replaced (when the
   * caller sends that history again), then each message as it went out before, or, seen for the
   * first time, checked and with earlier decisions applied. Returns the indices first seen, and
   * for each index the message as given (after a substitution, the compaction's own message).
   */
  async function absorb(canonical: readonly Message[]): Promise<{ start: Message[]; given: readonly Message[]; fresh: number[]; substituted: boolean }> {
    const replaced = memo !== undefined && startsWithSame(canonical, memo.input) ? memo : undefined;
    // the caller moved on to the compacted history: the replaced one need not be kept alive
    if (replaced === undefined) memo = undefined;
    const given = replaced === undefined ? canonical : [...replaced.output, ...canonical.slice(replaced.input.length)];
    // index in `given` → index in the caller's history, for error paths
    const offset = replaced === undefined ? 0 : replaced.input.length - replaced.output.length;
    const start = given.slice();
    const fresh: number[] = [];
    for (let index = replaced?.output.length ?? 0; index < start.length; index += 1) {
      const message = start[index] as Message;
      const known = seen.get(message);
      if (known !== undefined) {
        start[index] = known;
        continue;
      }
      assertMessage(message, `messages[${index + offset}]`);
      recordToolNames(message, toolNames);
      // summarized now, with the calls seen so far, as the batch offload's walk names them
      charsOf(message);
      if (mayHoldDecidedResults(message, decisions)) start[index] = await applyDecisions(message, decisions, ports.store);
      fresh.push(index);
    }
    return { start, given, fresh, substituted: replaced !== undefined };
  }

  /** Step 3b: compaction fitted to half of the trigger, behind the circuit breaker. */
  async function compact(
    working: Message[],
    tokensBefore: number,
    signal: AbortSignal | undefined,
    actions: ContextAction[],
  ): Promise<Message[] | undefined> {
    if (!backoff.mayAttempt) {
      actions.push({ type: 'compact-skipped', reason: 'backing-off', retryInCalls: backoff.waitingCalls });
      return undefined;
    }
    const ratio = calibration.ratio;
    // what compaction keeps as it is: its Head (the leading system messages) and the resume message
    let keptLocal = resumeMessage === undefined ? 0 : counts.of(resumeMessage);
    for (const message of partitionMessages(working).head) keptLocal += counts.of(message);
    const budgets = fitCompactBudgets({ targetTokens, keptTokens: Math.ceil(ratio * keptLocal), ratio, configured: options.budgets });

    let result: CompactResult;
    try {
      result = await ports.compact(working, { ...budgets, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      const retryInCalls = backoff.recordFailure();
      logger.warn(`context manager: compaction failed (${describeError(error)}); the history is sent as it is`);
      actions.push({ type: 'compact-skipped', reason: 'failed', error, retryInCalls });
      return undefined;
    }
    if (!result.compacted) {
      const retryInCalls = backoff.recordFailure();
      const reason = result.skippedReason ?? 'failed';
      actions.push(result.error === undefined ? { type: 'compact-skipped', reason, retryInCalls } : { type: 'compact-skipped', reason, error: result.error, retryInCalls });
      return undefined;
    }
    backoff.recordSuccess();
    const tokensAfter = estimateHistoryTokens(result.messages, ratio, counts, undefined);
    if (tokensAfter > targetTokens) {
      logger.warn(
        `context manager: the compacted context takes about ${tokensAfter} tokens, over its target of ${targetTokens} (half of the trigger); ` +
          'the system messages or the summary are larger than the window allows',
      );
    }
    const action: ContextCompactAction = {
      type: 'compact',
      tokensBefore,
      tokensAfter,
      targetTokens,
      archiveReference: result.archiveReference ?? result.originalMessagesPath ?? undefined,
      summarizer: result.summarizer,
      restoredFileCount: result.stats.restoredFileCount,
      budgets,
    };
    actions.push(action);
    const onCompact = hooks.onCompact;
    if (onCompact !== undefined) await notify('onCompact', () => onCompact(action, result));
    return result.messages;
  }

  /** The caller's shape for `output`, reusing the object built last time for a message that came out the same. */
  function toCallerShape(output: Message[], input: readonly M[]): M[] {
    const result = format.fromCanonical(output, input);
    if (result.length !== input.length) return result;
    for (let index = 0; index < result.length; index += 1) {
      const source = input[index];
      if (result[index] === source || typeof source !== 'object' || source === null) continue;
      const previous = formatOutputs.get(source);
      if (previous !== undefined && previous.canonical === output[index]) result[index] = previous.output;
      else formatOutputs.set(source, { canonical: output[index] as Message, output: result[index] as M });
    }
    return result;
  }

  async function run(input: readonly M[], prepareOptions: PrepareOptions): Promise<PrepareResult<M>> {
    const { signal } = prepareOptions;
    throwIfAborted(signal);
    backoff.beginCall();
    const actions: ContextAction[] = [];
    const canonical = format.toCanonical(input);
    const usage = checkUsage(prepareOptions.lastUsage, canonical.length, actions);
    const { start, given, fresh, substituted } = await absorb(canonical);

    // The provider's figure: this call's, else the last one while the history still starts with what it covered.
    let estimateAnchor: EstimateAnchor | undefined;
    if (usage !== undefined && substituted) {
      const reason = 'the history starts with messages an earlier call compacted, so the figure cannot be matched to them';
      logger.warn(`context manager: lastUsage ignored, counting locally instead: ${reason}`);
      actions.push({ type: 'usage-ignored', reason });
    } else if (usage !== undefined) {
      anchor = learnFromUsage(start, usage, anchor, calibration, counts.of);
    }
    if (!substituted && anchor !== undefined && startsWithSame(start, anchor.prefix)) {
      estimateAnchor = { inputTokens: anchor.inputTokens, messageCount: anchor.prefix.length, base: start };
    } else if (!substituted) {
      anchor = undefined;
    }

    // (1) direct offload of new results, (2) batch offload when the gate passes
    const working = start.slice();
    await reportOffload(await offloadNewResults(working, fresh, steps), actions);
    if (passesRatioGate(working.map(charsOf), options.batch)) {
      await reportOffload(await offloadOlderResults(working, steps, 'ratio-gate'), actions);
    }

    // (3) still over the trigger: offload without the gate first, then compact
    const ratio = calibration.ratio;
    const isOverTrigger = (): boolean => isAtTrigger(working, start, ratio, estimateAnchor);
    let compacted: Message[] | undefined;
    if (working.length > 0 && isOverTrigger()) {
      const gateless = { ratioThreshold: 0, keepRecent: options.batch.keepRecent };
      const offloaded =
        passesRatioGate(working.map(charsOf), gateless) && (await reportOffload(await offloadOlderResults(working, steps, 'over-trigger'), actions));
      if (!offloaded || isOverTrigger()) {
        compacted = await compact(working, estimateHistoryTokens(working, ratio, counts, estimateAnchor), signal, actions);
      }
    }

    const output = compacted ?? working;
    const isFresh = new Uint8Array(start.length);
    for (const index of fresh) isFresh[index] = 1;
    if (compacted !== undefined) {
      memo = { input: canonical, output: compacted };
      anchor = undefined;
      for (const message of compacted) seen.set(message, message);
    } else {
      for (let index = 0; index < output.length; index += 1) {
        const message = output[index] as Message;
        const first = start[index] as Message;
        if (message === first && isFresh[index] === 0) continue;
        seen.set(message, message);
        if (first !== message) seen.set(first, message);
        const original = given[index] as Message;
        if (original !== first && original !== message) seen.set(original, message);
      }
    }

    // Exact figures are computed when first read: a call far below the trigger need not
    // tokenize the references it just wrote (the next call counts them, or the provider does).
    let figures: { before: number; after: number } | undefined;
    const computeFigures = (): { before: number; after: number } =>
      (figures ??= {
        before: estimateTokensBefore(start, working, ratio, estimateAnchor),
        after: estimateHistoryTokens(output, ratio, counts, compacted === undefined ? estimateAnchor : undefined),
      });
    return {
      messages: toCallerShape(output, input),
      actions,
      stats: {
        messagesIn: input.length,
        messagesOut: output.length,
        get tokensBefore() {
          return computeFigures().before;
        },
        get tokensAfter() {
          return computeFigures().after;
        },
        triggerTokens,
        calibrationRatio: ratio,
        calibrationSamples: calibration.samples,
        anchoredMessages: compacted === undefined && estimateAnchor !== undefined ? estimateAnchor.messageCount : 0,
      },
    };
  }

  /**
   * Whether the estimate of `working` reaches the trigger. An upper bound is tried first, with
   * the messages this call created (offloaded copies) bounded by their bytes instead of
   * tokenized; only a bound at the trigger is checked exactly.
   */
  function isAtTrigger(working: readonly Message[], start: readonly Message[], ratio: number, estimateAnchor: EstimateAnchor | undefined): boolean {
    const created = new Set<Message>();
    for (let index = 0; index < working.length; index += 1) if (working[index] !== start[index]) created.add(working[index] as Message);
    const boundOf = (message: Message): number => (created.has(message) ? counts.bound(message) : counts.of(message));
    if (estimateHistoryTokens(working, ratio, counts, estimateAnchor, boundOf) < triggerTokens) return false;
    return estimateHistoryTokens(working, ratio, counts, estimateAnchor) >= triggerTokens;
  }

  /**
   * Tokens of the history at the start of the call. A message changed in this call that was
   * never counted (a new large result) is not tokenized for this: its size is its offloaded
   * form's count plus the characters removed, at 4 per token.
   */
  function estimateTokensBefore(start: readonly Message[], offloaded: readonly Message[], ratio: number, estimateAnchor: EstimateAnchor | undefined): number {
    let local = 0;
    for (let index = estimateAnchor?.messageCount ?? 0; index < start.length; index += 1) {
      const message = start[index] as Message;
      const after = offloaded[index] as Message;
      const known = message === after ? counts.of(message) : counts.peek(message);
      local +=
        known ?? counts.of(after) + Math.ceil(Math.max(0, charsOf(message).totalChars - charsOf(after).totalChars) / CHARS_PER_TOKEN_ESTIMATE);
    }
    const scaled = Math.ceil(ratio * local);
    return estimateAnchor === undefined ? scaled : estimateAnchor.inputTokens + scaled;
  }

  return {
    prepare(messages, prepareOptions) {
      if (!Array.isArray(messages)) {
        return Promise.reject(new InvalidMessageError('messages', `expected an array of messages, got ${describeValue(messages)}`));
      }
      let checked: PrepareOptions;
      try {
        checked = readPrepareOptions(prepareOptions);
      } catch (error) {
        return Promise.reject(error);
      }
      // one call at a time: each sees the decisions of the one before
      const result = queue.then(() => run(messages, checked));
      queue = result.catch(() => undefined);
      return result;
    },
    async offloadOutput(output, call) {
      const reference = await offloadToolOutput(output, call, steps);
      if (reference.action !== undefined) {
        const action = reference.action;
        const onOffload = hooks.onOffload;
        if (onOffload !== undefined) await notify('onOffload', () => onOffload(action));
      }
      return reference.text;
    },
  };
}
