/**
 * The context manager: one call per model request. In order, each step only when needed (see
 * `offload/offload-policy.ts` for the two timings): (1) new tool results: as results age, sent whole
 * unless too large for the window, then cut; on arrival, offloaded when large; (2) older results
 * and the large fields of older tool calls' inputs: in one batch when they pass their budget (as
 * they age) or the ratio gate (on arrival); (3) when the history is still over the compaction
 * trigger, older results and inputs without budget or gate, then compaction fitted to half of
 * the trigger, the exchange in flight kept verbatim after it.
 *
 * `prepare` is a function of the history's content and of what the session's folder of the
 * store holds: offloaded contents are named by their content, and each compaction, each usage
 * figure given (with the calibration learned from it) and, from time to time, the token counts
 * are records keyed by the fingerprint of the span they cover. A warm manager, a new one, one in another process or a restarted one give the
 * same messages for the same history; what this object keeps in memory only spares it work.
 * Pure: the store, the tokenizer, the hash, the logger and compaction come in as ports.
 *
 * The `manage` folder: the context manager (this file, its types in `types.ts`, its resolved
 * options in `manager-options.ts`, its ports in `manager-ports.ts`), with its steps by feature:
 * `offload/` (what leaves when, as results age or on arrival), `compaction/` (trigger, target,
 * span, the circuit breaker), `counting/` (the estimate, the provider's usage as anchor, the
 * calibration) and `records/` (the decisions kept in the session's folder, keyed by content
 * fingerprints); `read-back.ts` (results that bring offloaded content back) and `session-id.ts`
 * (sessions named by content) sit beside it.
 */
import { createAbortableStore, throwIfAborted } from '../abort.js';
import { describeError, describeValue, InvalidMessageError, InvalidOptionError } from '../errors.js';
import type { TokenCounter } from '../ports.js';
import { recordToolNames } from '../messages/tool-names.js';
import type { Message } from '../types.js';
import { assertMessage } from '../messages/validate-messages.js';
import { createCompactionBackoff } from './compaction/backoff.js';
import { compactWithRecord, type CompactStep } from './compaction/compact-step.js';
import { computeCompactionRoom, isAtCompactionTrigger, type CompactionRoom } from './compaction/compaction-policy.js';
import type { ContextManagerPorts } from './manager-ports.js';
import {
  createLocalCounts,
  estimateHistoryTokens,
  messagesEstimated,
  type EstimateAnchor,
} from './counting/history-estimate.js';
import type { ResolvedContextManagerOptions } from './manager-options.js';
import { offloadToolOutput } from './offload/offload-output.js';
import { applyDecisions, mayHoldOffloadedResults } from './offload/offload-steps.js';
import { applyTextDecisions, mayHoldOffloadedText } from './offload/assistant-text.js';
import { createOffloadPolicy } from './offload/offload-policy.js';
import { summarizeMessageChars, type MessageChars } from './offload/ratio-gate.js';
import { applyInputDecisions, mayHoldOffloadedInputs } from './offload/tool-inputs.js';
import { createSessionAccess, type CallAccess, type SessionAccess } from './records/session-access.js';
import { AUTO_SESSION_ID, deriveSessionIdWith } from './session-id.js';
import { findSmallestWorkingWindow } from './counting/fixed-overhead.js';
import { findProviderCompactionHead, readProviderCompactionText } from '../messages/provider-compaction.js';
import type { ContextAction, ContextManager, ContextOffloadAction, PrepareOptions, PrepareResult } from './types.js';
import { checkLastUsage, type CheckedUsage } from './counting/usage-anchor.js';

export type { CompactCall, ContextManagerPorts } from './manager-ports.js';

/** Characters per token assumed for a result offloaded before it was ever counted (tokensBefore only). */
const CHARS_PER_TOKEN_ESTIMATE = 4;
/** An anchor below this share of the local count of the messages it covers is not believed (`input_tokens` without its cache figures). */
const MIN_USAGE_SHARE_OF_LOCAL = 0.5;

/** The caller's object for a changed message, and the canonical message it was built from. */
interface FormatOutput<M> {
  canonical: Message;
  output: M;
}

/** The core manager: a {@link ContextManager} that also says which session it works in. */
export interface CoreContextManager<M> extends ContextManager<M> {
  /** The session (with `'auto'`, `undefined` until a history with a user message names it). */
  readonly sessionId: string | undefined;
}

function readPrepareOptions(options: unknown): PrepareOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(
      `prepare options must be an object { lastUsage?, signal?, fixedTokens? }, got ${describeValue(options)}`,
    );
  }
  const { signal, fixedTokens } = options as PrepareOptions;
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean')) {
    throw new InvalidOptionError(`signal must be an AbortSignal, got ${describeValue(signal)}`);
  }
  if (
    fixedTokens !== undefined &&
    (typeof fixedTokens !== 'number' || !Number.isFinite(fixedTokens) || fixedTokens < 0)
  ) {
    throw new InvalidOptionError(
      `fixedTokens must be a finite number >= 0 (the tokens of the system prompt and tools), got ${describeValue(fixedTokens)}`,
    );
  }
  return options as PrepareOptions;
}

/**
 * Creates a context manager over resolved options and ports. `prepare` calls run one at a time
 * (a second call waits for the first).
 */
export function createContextManagerWith<M>(
  options: ResolvedContextManagerOptions<M>,
  ports: ContextManagerPorts,
): CoreContextManager<M> {
  const { format, hooks } = options;
  const { logger } = ports;
  const toolNames = new Map<string, string>();
  const backoff = createCompactionBackoff();
  let tokenized = 0;
  const counter: TokenCounter = {
    count(text) {
      const count = ports.tokenCounter.count(text);
      tokenized += count;
      return count;
    },
  };
  // counts are shared with compaction, which counts through the caller's counter: a message is tokenized once
  const counts = createLocalCounts(counter, ports.countsAtMostUtf8Bytes, ports.hashing, {
    shareWith: ports.tokenCounter,
    yieldToLoop: ports.yieldToLoop,
  });
  const roomFor = (fixedTokens: number): CompactionRoom =>
    computeCompactionRoom({
      contextTokenLimit: options.contextTokenLimit,
      compactThresholdRatio: options.compaction.triggerRatio,
      fixedTokens,
    });
  const { triggerTokens } = roomFor(0);
  // the fixed part over the trigger is said once per manager: every request of the session meets it
  let overheadReported = false;
  // a message as given, or as sent → the form the manager works on (offload decisions applied)
  const seen = new WeakMap<Message, Message>();
  const charSummaries = new WeakMap<Message, MessageChars>();
  // a provider's compaction summary counts nothing as a block of unknown type: counted apart, once
  const providerSummaryTokens = new WeakMap<Message, number>();
  const formatOutputs = new WeakMap<object, FormatOutput<M>>();
  let session: SessionAccess | undefined;
  /** Whether an ignored usage figure was logged: the log says it once per manager. */
  let warnedUsageIgnored = false;
  let queue: Promise<unknown> = Promise.resolve();

  const charsOf = (message: Message): MessageChars => {
    let summary = charSummaries.get(message);
    if (summary === undefined) {
      summary = summarizeMessageChars(message, toolNames, options.offload.batch);
      charSummaries.set(message, summary);
    }
    return summary;
  };
  const policy = createOffloadPolicy({
    options,
    charsOf,
    counts,
    report: (action, actions) => reportOffload(action, actions),
  });

  const openSession = (sessionId: string): SessionAccess =>
    createSessionAccess({
      sessionId,
      options,
      ports,
      toolNames,
      counts,
      initialRatio: options.initialCalibrationRatio,
    });

  /** The session of this history: the configured one, or (with `'auto'`) the one its content names, fixed once it has a user message. */
  function resolveSession(canonical: readonly Message[]): SessionAccess {
    if (session !== undefined) return session;
    if (options.sessionId !== AUTO_SESSION_ID) return (session = openSession(options.sessionId));
    const derived = openSession(deriveSessionIdWith(canonical, ports.hashing));
    if (canonical.some((message) => message.role === 'user')) session = derived;
    return derived;
  }

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

  function ignoreUsage(reason: string, actions: ContextAction[]): undefined {
    // said once: a caller that keeps its raw history sends a figure that does not fit after every
    // compaction; each call's actions still report it
    if (warnedUsageIgnored) logger.debug?.(`context manager: lastUsage ignored, counting locally instead: ${reason}`);
    else
      logger.warn(
        `context manager: lastUsage ignored, counting locally instead: ${reason} (logged once; each request's actions report it)`,
      );
    warnedUsageIgnored = true;
    actions.push({ type: 'usage-ignored', reason });
    return undefined;
  }

  /** The usage figure of this call, checked; a figure that does not fit is reported and dropped. */
  function checkUsage(lastUsage: unknown, historyLength: number, actions: ContextAction[]): CheckedUsage | undefined {
    if (lastUsage === undefined) return undefined;
    const checked = checkLastUsage(lastUsage, historyLength);
    return 'usage' in checked ? checked.usage : ignoreUsage(checked.reason, actions);
  }

  /**
   * Each message in the form the manager works on: as it went out before, or, seen for the first
   * time, checked and with the offloads decided before (in any process) applied. Returns the
   * indices first seen.
   */
  async function absorb(
    canonical: readonly Message[],
    access: SessionAccess,
    call: CallAccess,
    learned = false,
  ): Promise<{ given: Message[]; fresh: number[] }> {
    const given = canonical.slice();
    const fresh: number[] = [];
    let unexplained = false;
    for (let index = 0; index < given.length; index += 1) {
      const message = given[index] as Message;
      const known = seen.get(message);
      if (known !== undefined) {
        // what was learned since may have offloaded what this manager kept inline
        given[index] = learned ? applyAllDecisions(known, access.steps, call.store) : known;
        continue;
      }
      assertMessage(message, `messages[${index}]`);
      recordToolNames(message, toolNames);
      access.steps.readBacks.record(message);
      // summarized now, with the calls seen so far, as the batch offload's walk names them
      const chars = charsOf(message);
      fresh.push(index);
      unexplained = access.mayNeedListing(message, chars.results) || unexplained;
    }
    // a raw result no process was known to offload: ask the store before deciding it
    if (unexplained) await call.explain();
    for (const index of fresh) given[index] = applyAllDecisions(given[index] as Message, access.steps, call.store);
    return { given, fresh };
  }

  /** `message` with the offloads of its results, or else of its inputs and its large texts, decided before (in any process) applied. */
  function applyAllDecisions(message: Message, steps: SessionAccess['steps'], store: CallAccess['store']): Message {
    if (mayHoldOffloadedResults(message, steps)) return applyDecisions(message, steps, store);
    const withInputs = mayHoldOffloadedInputs(message, steps) ? applyInputDecisions(message, steps, store) : message;
    return mayHoldOffloadedText(withInputs, steps) ? applyTextDecisions(withInputs, steps, store) : withInputs;
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

  /**
   * The anchor of this call: its usage figure, unless it is implausibly small for the messages it
   * covers. When the history starts with messages a compaction replaced (a caller that keeps its
   * raw history), the figure counts the history as it was sent: the compacted one.
   */
  async function anchorOf(
    usage: CheckedUsage | undefined,
    start: readonly Message[],
    actions: ContextAction[],
    signal: AbortSignal | undefined,
  ): Promise<(EstimateAnchor & { usage: CheckedUsage }) | undefined> {
    if (usage === undefined) return undefined;
    if (usage.messageCount > start.length) {
      return ignoreUsage(
        `lastUsage covers ${usage.messageCount} messages, but the history as sent (compacted) has ${start.length}`,
        actions,
      );
    }
    // a figure that fits an upper bound of the local count fits the count: messages not counted yet are not tokenized for it
    let bound = 0;
    for (let index = 0; index < usage.messageCount; index += 1) bound += counts.bound(start[index] as Message);
    let local = bound;
    if (usage.inputTokens < MIN_USAGE_SHARE_OF_LOCAL * bound) {
      await counts.warm(start.slice(0, usage.messageCount), signal);
      local = 0;
      for (let index = 0; index < usage.messageCount; index += 1) local += counts.of(start[index] as Message);
    }
    if (usage.inputTokens < MIN_USAGE_SHARE_OF_LOCAL * local) {
      return ignoreUsage(
        `lastUsage says ${usage.inputTokens} tokens for ${usage.messageCount} messages the local tokenizer counts ${local} tokens; ` +
          `a figure below ${MIN_USAGE_SHARE_OF_LOCAL}x the local count does not fit them (input_tokens without the cache figures?)`,
        actions,
      );
    }
    return { inputTokens: usage.inputTokens, messageCount: usage.messageCount, base: start, usage };
  }

  async function run(input: readonly M[], prepareOptions: PrepareOptions): Promise<PrepareResult<M>> {
    const { signal } = prepareOptions;
    throwIfAborted(signal);
    backoff.beginCall();
    const tokenizedBefore = tokenized;
    const actions: ContextAction[] = [];
    const whole = format.toCanonical(input);
    const access = resolveSession(whole);
    // a provider's own compaction is the head: it and what precedes it go on as they came, the rest is managed
    const pinned = await pinProviderHead(whole, signal);
    const canonical = pinned.messages.length === 0 ? whole : whole.slice(pinned.messages.length);
    const store = createAbortableStore(ports.store, signal);
    const call = access.beginCall(store, signal, actions);
    if (!access.knowledge.listed) await call.learn();
    const usage = unpinUsage(checkUsage(prepareOptions.lastUsage, whole.length, actions), pinned.messages.length);
    let { given, fresh: givenFresh } = await absorb(canonical, access, call);
    let match = await access.match(given, call);
    if (access.servedElsewhere(match.messages) || (usage !== undefined && access.countedElsewhere(usage))) {
      // what was decided elsewhere meanwhile is learned, then the history is read again with it
      await call.learn();
      ({ given, fresh: givenFresh } = await absorb(canonical, access, call, true));
      match = await access.match(given, call);
    }
    const start = match.messages;
    // positions of the given history after the compactions the records applied
    const shift = start.length - given.length;
    const fresh = givenFresh.filter((index) => index >= match.replaced).map((index) => index + shift);
    const estimateAnchor = await anchorOf(usage, start, actions, signal);
    // the calibration is read off the records (a figure learns against the one recorded before it), never off this object's past calls
    const { inForce, learned, foundAt } = await access.calibrate(start, match, estimateAnchor?.usage, call);
    const ratio = inForce.ratio;
    // the system prompt and tools, calibrated as the history is; a usage figure counts them already
    const fixedTokens = Math.ceil(ratio * ((prepareOptions.fixedTokens ?? 0) + pinned.tokens));
    if (fixedTokens > 0 && fixedTokens >= triggerTokens)
      return sendOverTrigger(
        input,
        whole,
        [...pinned.messages, ...start],
        access.sessionId,
        fixedTokens,
        { ratio, samples: inForce.samples },
        actions,
      );
    const room = roomFor(fixedTokens);
    const { targetTokens, maxExchangeTokens } = room;
    const fixedOutside = (anchorUsed: EstimateAnchor | undefined): number =>
      anchorUsed === undefined ? fixedTokens : 0;

    // (1) new results, (2) older ones (and older inputs): as they age, or on arrival and by the ratio gate
    let working = start.slice();
    const steps = access.steps;
    await policy.offloadOnCall(working, fresh, steps, call, actions, {
      ratio,
      historyTriggerTokens: room.historyTriggerTokens,
    });

    // (3) still over the trigger: offload without the gate or budget first, then compact
    const offloaded = working.slice();
    let anchorInForce = estimateAnchor;
    const isOverTrigger = (): Promise<boolean> =>
      isAtTrigger(working, ratio, anchorInForce, fixedOutside(anchorInForce), signal);
    let compacted: Message[] | undefined;
    if (working.length > 0 && (await isOverTrigger())) {
      const freed = await policy.offloadOverTrigger(
        working,
        steps,
        call,
        actions,
        ratio,
        maxExchangeTokens,
        isOverTrigger,
      );
      offloaded.splice(0, offloaded.length, ...working);
      if (!freed || (await isOverTrigger())) {
        // another process may have compacted this very history meanwhile: its record serves
        const again = await access.rematch(working, call);
        if (again !== undefined) {
          working = again;
          anchorInForce = undefined;
        }
        if (again === undefined || (await isOverTrigger())) {
          const step: CompactStep = {
            access,
            call,
            counts,
            backoff,
            logger,
            hooks,
            targetTokens,
            calibration: inForce,
            recordedCalibration: learned,
            resumeMessage: options.compaction.resumeMessage,
            budgets: options.compaction.budgets,
            compact: ports.compact,
            notify,
          };
          await counts.warm(messagesEstimated(working, anchorInForce), signal);
          compacted = await compactWithRecord(
            working,
            estimateHistoryTokens(working, ratio, counts, anchorInForce),
            step,
            actions,
          );
          // a summary over its budget leaves no room for the newest results kept whole
          const compaction = actions.at(-1);
          if (compacted !== undefined && compaction?.type === 'compact') {
            const beforeFit = compacted.slice();
            await policy.fitCompacted(compacted, compaction.targetTokens, steps, call, actions, ratio);
            // a kept message cut after the compaction goes on in its cut form from here on, as a manager meeting it again applies it
            carryFittedForms(beforeFit, compacted, offloaded);
          }
        }
      }
    }

    const output = compacted ?? working;
    access.noteSent(output);
    rememberForms(canonical, given, match.replaced, shift, offloaded, output);
    await access.recordCounts(output, call, {
      tokenized: tokenized - tokenizedBefore,
      inForce,
      learned,
      // an offload in the span whose record holds the calibration hides it from the next request: the counts' record carries it
      carry: compacted === undefined && changedBefore(start, output, foundAt),
    });

    // Exact figures are computed when first read: a call far below the trigger need not
    // tokenize the references it just wrote (the next call counts them, or the provider does).
    let figures: { before: number; after: number } | undefined;
    const computeFigures = (): { before: number; after: number } =>
      (figures ??= {
        before: estimateTokensBefore(start, offloaded, ratio, estimateAnchor) + fixedOutside(estimateAnchor),
        after:
          estimateHistoryTokens(output, ratio, counts, compacted === undefined ? anchorInForce : undefined) +
          fixedOutside(compacted === undefined ? anchorInForce : undefined),
      });
    return {
      messages: toCallerShape(pinned.messages.length === 0 ? output : [...pinned.messages, ...output], input),
      sessionId: access.sessionId,
      actions,
      stats: {
        messagesIn: input.length,
        messagesOut: pinned.messages.length + output.length,
        get tokensBefore() {
          return computeFigures().before;
        },
        get tokensAfter() {
          return computeFigures().after;
        },
        triggerTokens,
        calibrationRatio: ratio,
        calibrationSamples: inForce.samples,
        anchoredMessages: compacted === undefined && anchorInForce !== undefined ? anchorInForce.messageCount : 0,
        costModel: options.costModel,
      },
    };
  }

  /**
   * The messages through a provider's compaction (none without one), and the tokens of them the
   * provider still reads, which go with the system prompt and tools: its compaction's summary,
   * and the messages before it unless the provider drops them (Anthropic does).
   */
  async function pinProviderHead(
    messages: readonly Message[],
    signal: AbortSignal | undefined,
  ): Promise<{ messages: Message[]; tokens: number }> {
    const head = findProviderCompactionHead(messages);
    if (head === undefined) return { messages: [], tokens: 0 };
    const headMessage = messages[head.index] as Message;
    const counted = head.dropsEarlier ? [headMessage] : messages.slice(0, head.index + 1);
    await counts.warm(counted, signal);
    // the results after the head answer calls made in it
    recordToolNames(headMessage, toolNames);
    let summaryTokens = providerSummaryTokens.get(headMessage);
    if (summaryTokens === undefined) {
      summaryTokens = counter.count(readProviderCompactionText(headMessage));
      providerSummaryTokens.set(headMessage, summaryTokens);
    }
    let tokens = summaryTokens;
    for (const message of counted) tokens += counts.of(message);
    return { messages: messages.slice(0, head.index + 1), tokens };
  }

  /** `usage` over the managed messages after `pinnedCount` pinned ones; a figure that ends within them says nothing of the rest. */
  function unpinUsage(usage: CheckedUsage | undefined, pinnedCount: number): CheckedUsage | undefined {
    if (usage === undefined || pinnedCount === 0) return usage;
    return usage.messageCount <= pinnedCount
      ? undefined
      : { inputTokens: usage.inputTokens, messageCount: usage.messageCount - pinnedCount };
  }

  /** Whether `output` holds another message than `start` among their first `count`. */
  function changedBefore(start: readonly Message[], output: readonly Message[], count: number): boolean {
    const end = Math.min(count, start.length, output.length);
    for (let index = 0; index < end; index += 1) if (output[index] !== start[index]) return true;
    return false;
  }

  /** In `offloaded`, each message the compaction kept that `fitCompacted` then replaced (in `fitted`), by its replacement. */
  function carryFittedForms(beforeFit: readonly Message[], fitted: readonly Message[], offloaded: Message[]): void {
    beforeFit.forEach((message, index) => {
      if (fitted[index] === message) return;
      const position = offloaded.lastIndexOf(message);
      if (position >= 0) offloaded[position] = fitted[index] as Message;
    });
  }

  /**
   * Remembers the form each message of this call goes on in: a given message (and its working
   * form) maps to its form after this call's offloads, a compaction's message to itself. The
   * next call that sends the same objects skips checking and deciding them. Messages that came
   * in already in their form and did not change are known already.
   */
  function rememberForms(
    canonical: readonly Message[],
    given: readonly Message[],
    replaced: number,
    shift: number,
    working: readonly Message[],
    output: readonly Message[],
  ): void {
    for (let index = 0; index < canonical.length; index += 1) {
      const original = canonical[index] as Message;
      const form = index < replaced ? (given[index] as Message) : (working[index + shift] as Message);
      if (original === form && seen.get(form) === form) continue;
      seen.set(original, form);
      seen.set(given[index] as Message, form);
      seen.set(form, form);
    }
    // the messages a compaction record put in place of the given ones
    for (let index = 0; index < replaced + shift; index += 1)
      seen.set(working[index] as Message, working[index] as Message);
    if (output !== working) for (const message of output) seen.set(message, message);
  }

  /**
   * Whether the estimate of `working` reaches the trigger. An upper bound is tried first: the
   * messages not counted yet (a new result, an offloaded copy) bounded by their bytes, and those
   * the provider's figure covered that this call changed taken as at least what is known of them,
   * nothing tokenized; only a bound at the trigger is checked exactly. A history well under the
   * trigger is not tokenized at all.
   */
  async function isAtTrigger(
    working: readonly Message[],
    ratio: number,
    estimateAnchor: EstimateAnchor | undefined,
    fixedTokens: number,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const room = roomFor(fixedTokens);
    const lowerOf = (message: Message): number => counts.peek(message) ?? 0;
    if (
      !isAtCompactionTrigger(estimateHistoryTokens(working, ratio, counts, estimateAnchor, counts.bound, lowerOf), room)
    )
      return false;
    await counts.warm(messagesEstimated(working, estimateAnchor), signal);
    return isAtCompactionTrigger(estimateHistoryTokens(working, ratio, counts, estimateAnchor), room);
  }

  /**
   * The call when the fixed part alone reaches the trigger: no history fits beside it, and
   * compacting would summarize the user's own request away, so the history goes on as it came,
   * with only the decisions taken before applied (`start`: what was offloaded or compacted
   * stays so). Said once per manager (the log and the action), with the smallest window that works.
   */
  function sendOverTrigger(
    input: readonly M[],
    canonical: readonly Message[],
    start: readonly Message[],
    sessionId: string,
    fixedTokens: number,
    { ratio, samples }: { ratio: number; samples: number },
    actions: ContextAction[],
  ): PrepareResult<M> {
    if (!overheadReported) {
      overheadReported = true;
      const smallestWindow = findSmallestWorkingWindow(fixedTokens, options.compaction.triggerRatio);
      logger.warn(
        `context manager: the system prompt and tools take about ${fixedTokens} tokens, at or over the compaction trigger of ` +
          `${triggerTokens} (a window of ${options.contextTokenLimit}), so no history fits beside them: requests are sent as they come, nothing offloaded or compacted. ` +
          `The smallest window that works with them is ${smallestWindow} tokens`,
      );
      actions.push({ type: 'overhead-over-trigger', overheadTokens: fixedTokens, triggerTokens, smallestWindow });
    }
    let tokens: number | undefined;
    // counted only when read: a history sent as it came need not be tokenized
    const estimate = (): number => (tokens ??= estimateHistoryTokens(start, ratio, counts, undefined) + fixedTokens);
    const unchanged =
      start.length === canonical.length && start.every((message, index) => message === canonical[index]);
    return {
      messages: unchanged ? input.slice() : toCallerShape(start.slice(), input),
      sessionId,
      actions,
      stats: {
        messagesIn: input.length,
        messagesOut: start.length,
        get tokensBefore() {
          return estimate();
        },
        get tokensAfter() {
          return estimate();
        },
        triggerTokens,
        calibrationRatio: ratio,
        calibrationSamples: samples,
        anchoredMessages: 0,
        costModel: options.costModel,
      },
    };
  }

  /**
   * Tokens of the history at the start of the call. A message changed in this call that was
   * never counted (a new large result) is not tokenized for this: its size is its offloaded
   * form's count plus the characters removed, at 4 per token.
   */
  function estimateTokensBefore(
    start: readonly Message[],
    offloaded: readonly Message[],
    ratio: number,
    estimateAnchor: EstimateAnchor | undefined,
  ): number {
    let local = 0;
    const end = Math.min(start.length, offloaded.length);
    for (let index = estimateAnchor?.messageCount ?? 0; index < end; index += 1) {
      const message = start[index] as Message;
      const after = offloaded[index] as Message;
      const known = message === after ? counts.of(message) : counts.peek(message);
      local +=
        known ??
        counts.of(after) +
          Math.ceil(Math.max(0, charsOf(message).totalChars - charsOf(after).totalChars) / CHARS_PER_TOKEN_ESTIMATE);
    }
    const scaled = Math.ceil(ratio * local);
    return estimateAnchor === undefined ? scaled : estimateAnchor.inputTokens + scaled;
  }

  return {
    get sessionId() {
      return session?.sessionId;
    },
    prepare(messages, prepareOptions) {
      if (!Array.isArray(messages)) {
        return Promise.reject(
          new InvalidMessageError('messages', `expected an array of messages, got ${describeValue(messages)}`),
        );
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
    async offloadOutput(output, toolCall) {
      if (session === undefined && options.sessionId === AUTO_SESSION_ID) {
        if (typeof output !== 'string')
          throw new InvalidOptionError(
            `output must be a string (the tool's output as the model would read it), got ${describeValue(output)}`,
          );
        logger.warn(
          'context manager: offloadOutput before the first prepare of an "auto" session (no session yet): the output stays inline',
        );
        return output;
      }
      const access = session ?? resolveSession([]);
      const call = access.beginCall(ports.store, undefined, []);
      const reference = await offloadToolOutput(output, toolCall, access.steps, call);
      if (reference.action !== undefined) {
        const action = reference.action;
        const onOffload = hooks.onOffload;
        if (onOffload !== undefined) await notify('onOffload', () => onOffload(action));
      }
      return reference.text;
    },
  };
}
