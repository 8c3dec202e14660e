/**
 * One session's folder as the manager uses it in one call: what it knows of the folder
 * (contents and records), the one listing a call may make, reading the records a history
 * reaches, and writing the records of what the call decided. A store that fails while records
 * are listed or read leaves the call working as a manager that knows nothing (said in
 * `actions` as `records-unavailable`); a record that cannot be used is warned about once and
 * the work it held is done again.
 */
import { describeError } from '../../errors.js';
import { isOffloadReference } from '../../offload/offload-reference.js';
import { toFileStem } from '../../offload/offload-names.js';
import { callStore, runConcurrently, WRITE_CONCURRENCY } from '../../offload/offload-files.js';
import type { ContentStore, Logger } from '../../ports.js';
import {
  isToolResultBlock,
  isToolUseBlock,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../../types.js';
import { buildContentName } from '../offload/content-names.js';
import { sha256Hex } from './fingerprint.js';
import type { LocalCounts } from '../counting/history-estimate.js';
import type { ContextManagerPorts } from '../manager-ports.js';
import type { ResolvedContextManagerOptions } from '../manager-options.js';
import { readStoredTexts, type OffloadCall, type OffloadStepContext } from '../offload/offload-steps.js';
import type { ResultChars } from '../offload/ratio-gate.js';
import { createReadBackCalls } from '../read-back.js';
import { createRecordChain, type ReadRecord } from './record-chain.js';
import { createSessionKnowledge, type SessionKnowledge } from './session-knowledge.js';
import { countLargeInputChars } from '../offload/tool-inputs.js';
import { movesCalibration } from '../counting/calibration.js';
import { learnFromUsage, type CheckedUsage } from '../counting/usage-anchor.js';
import {
  type AnchorRecord,
  buildRecordKey,
  parseRecord,
  RECORD_FOLDER,
  RECORD_VERSION,
  serializeRecord,
  type RecordedCalibration,
  type RecordedTokens,
  type RecordKind,
  type RecordName,
  type RecordSpan,
  type SessionRecord,
} from './session-records.js';
import type { ContextAction, ContextWritesDeferredAction } from '../types.js';

/**
 * Local tokens counted since the last count record before a call writes another: a manager
 * that meets the history later (another process, a restart) tokenizes at most about this much.
 */
const COUNT_RECORD_MIN_TOKENS = 4096;
/** Records of one span tried after unusable ones, before giving up writing. */
const MAX_RECORD_ATTEMPTS = 16;

/** One call's access to the folder. */
export interface CallAccess extends OffloadCall {
  readonly signal: AbortSignal | undefined;
  readRecord: ReadRecord;
  /** Whether the folder could not be listed or read in this call. */
  readonly failed: boolean;
  /**
   * Learns whether the results {@link SessionAccess.mayNeedListing} found unexplained were
   * offloaded by another process: by asking the store about the names their content would have
   * (a name follows from the call id and the content), not by listing the folder; an unexplained
   * input field, or a listing made already, means the listing.
   */
  explain(): Promise<void>;
}

/** What matching a history against the records gave, with the calibration in force after it. */
interface SessionMatch {
  messages: Message[];
  replaced: number;
  calibration: RecordedCalibration;
  /** Fingerprints of prefixes of `messages` hashed while matching, by length. */
  fingerprints: ReadonlyMap<number, string>;
}

/** The calibration of a call, from the records. */
interface CalibrationInForce {
  /** In force in this call. */
  inForce: RecordedCalibration;
  /** In force from the next request of the history on (what this call's usage figure taught, or `inForce`). */
  learned: RecordedCalibration;
  /**
   * The next request finds `learned` in a record over the first `foundAt` messages of this
   * call's history while the call leaves them as they were (0: nothing learned, nothing to find).
   */
  foundAt: number;
}

/** What a compaction record write came to: our messages, or those of a record written first. */
interface RecordedCompaction {
  messages: Message[];
  /** False when another process recorded this span first: its messages are the ones returned. */
  won: boolean;
}

/** A session's folder, for a manager. */
export interface SessionAccess {
  readonly sessionId: string;
  readonly knowledge: SessionKnowledge;
  readonly steps: OffloadStepContext;
  beginCall(store: ContentStore, signal: AbortSignal | undefined, actions: ContextAction[]): CallAccess;
  /**
   * Whether a message first seen may hold a result (or an input field) another process
   * offloaded that this manager does not know of, for the call's {@link CallAccess.explain} to
   * learn; `chars` are the characters of its results, in order.
   */
  mayNeedListing(message: Message, chars: readonly ResultChars[]): boolean;
  /**
   * Whether `history` (with the records known applied) says requests of this session were
   * served elsewhere since this manager's last call (another process, another proxy): it holds
   * more than one assistant turn after what this manager sent last. Their decisions are then
   * learned (one listing) before anything is decided: a result this manager kept inline may
   * have been offloaded there, a span compacted there. A manager that serves every request of
   * its session never lists again.
   */
  servedElsewhere(history: readonly Message[]): boolean;
  /**
   * Whether the call's usage figure counted a request this manager did not serve (it covers
   * another number of messages than this manager sent last): that request's figure was
   * recorded elsewhere, and this one learns against it, so what was recorded is learned first.
   */
  countedElsewhere(usage: CheckedUsage): boolean;
  /** Notes what this call sent, for {@link servedElsewhere}. */
  noteSent(output: readonly Message[]): void;
  /** Applies the records that match `history` (compactions, counts). */
  match(history: readonly Message[], call: CallAccess): Promise<SessionMatch>;
  /** After the call's listing: the working history with a compaction recorded meanwhile applied, or `undefined` when none applies. */
  rematch(working: readonly Message[], call: CallAccess): Promise<Message[] | undefined>;
  /** Records the compaction of the first `spanLength` messages of `working` into `replacement`. */
  recordCompaction(
    working: readonly Message[],
    spanLength: number,
    replacement: Message[],
    meta: { archiveReference: string | null; summarizer: string; calibration: RecordedCalibration },
    call: CallAccess,
  ): Promise<RecordedCompaction>;
  /**
   * The calibration in force for `history` (the working history, matched: `matched` is the
   * calibration its compaction and count records gave) and what the call's accepted usage
   * figure teaches. In force: whichever of `matched` and the calibration of the last figure
   * recorded for a prefix of `history` learned from more figures. Learned: from `usage` against
   * the last figure recorded for a shorter prefix (found by content, not by object), and recorded
   * with the figure, so the next request of the history learns from it in any process.
   */
  calibrate(
    history: readonly Message[],
    matched: Pick<SessionMatch, 'calibration' | 'fingerprints'>,
    usage: CheckedUsage | undefined,
    call: CallAccess,
  ): Promise<CalibrationInForce>;
  /**
   * Records the counts of `output` (and the learned calibration) when enough was counted, or
   * when `carry` says the next request would not find the learned calibration otherwise.
   */
  recordCounts(
    output: readonly Message[],
    call: CallAccess,
    progress: { tokenized: number; inForce: RecordedCalibration; learned: RecordedCalibration; carry: boolean },
  ): Promise<void>;
}

/** What a session's access is made of. */
export interface SessionAccessParts<M> {
  sessionId: string;
  options: ResolvedContextManagerOptions<M>;
  ports: ContextManagerPorts;
  toolNames: Map<string, string>;
  counts: LocalCounts;
  /** Calibration in force before any record: the family's margin. */
  initialRatio: number;
}

/** The access to one session's folder. */
export function createSessionAccess<M>(parts: SessionAccessParts<M>): SessionAccess {
  const { sessionId, options, ports, counts } = parts;
  const logger: Logger = ports.logger;
  const knowledge = createSessionKnowledge();
  const chain = createRecordChain(ports.hashing);
  // what the store names a key of the folder, the key's own name left out
  const folderReference = ports.store.referenceFor(`${sessionId}/x`).slice(0, -1);
  const steps: OffloadStepContext = {
    sessionId,
    threshold: options.offload.directThreshold,
    excludeTools: options.offload.excludeTools,
    preview: options.offload.preview,
    directPreview: options.offload.timing === 'as-they-age' ? options.offload.aging.cut : options.offload.preview,
    batch: options.offload.batch,
    timing: options.offload.timing,
    aging: options.offload.aging,
    toolNames: parts.toolNames,
    readBacks: createReadBackCalls(folderReference, (name) => knowledge.hasContent(name)),
    knowledge,
    hashing: ports.hashing,
    moved: new Map(),
    readToolNames: options.offload.readToolNames,
    logger: ports.logger,
  };
  const warned = new Set<string>();
  const smallestOffloaded = Math.min(options.offload.directThreshold, options.offload.batch.charThreshold);
  let uncounted = 0;
  // raw results (call id and length) this manager has met: meeting them again is nothing new
  const judged = new Set<string>();
  // what the call's `explain` is to learn about: results to look up by name, and whether an input field needs the listing
  let unexplainedResults: ToolResultBlock[] = [];
  /** Whether the store refused the last offload write: its warning is given once while it keeps refusing. */
  let writesRefused = false;
  let unexplainedInputs = false;

  const applyTokens = (messages: readonly Message[], tokens: RecordedTokens | undefined): void => {
    if (tokens === undefined || ports.tokenizerId === undefined || tokens.tokenizer !== ports.tokenizerId) return;
    tokens.counts.forEach((count, index) => {
      const message = messages[index];
      if (count !== null && message !== undefined && counts.peek(message) === undefined) counts.set(message, count);
    });
  };

  function warnUnusable(name: RecordName, problem: string): void {
    const key = buildRecordKey(sessionId, name);
    if (warned.has(key)) return;
    warned.add(key);
    logger.warn(`context manager: the record ${key} is ignored (${problem}); its work is done again`);
  }

  function beginCall(store: ContentStore, signal: AbortSignal | undefined, actions: ContextAction[]): CallAccess {
    let listing: Promise<void> | undefined;
    unexplainedResults = [];
    unexplainedInputs = false;
    let failed = false;
    const fail = (error: unknown): void => {
      if (signal?.aborted) throw signal.reason;
      if (failed) return;
      failed = true;
      // named as the store that holds the records names them (a Redis or S3 store's records are not in the content's folder)
      const records = store.referenceFor(`${sessionId}/${RECORD_FOLDER}/x`).slice(0, -1);
      logger.warn(
        `context manager: the session's records in ${records} could not be read (${describeError(error)}); this call works without them`,
      );
      actions.push({ type: 'records-unavailable', error });
    };

    let deferred: ContextWritesDeferredAction | undefined;
    const deferWrite = (toolCallId: string, error: unknown): void => {
      if (signal?.aborted) throw signal.reason;
      if (deferred === undefined) {
        deferred = { type: 'writes-deferred', toolCallIds: [], error };
        actions.push(deferred);
        // said once while the store keeps refusing, not at every call
        if (!writesRefused) {
          logger.warn(
            `context manager: the store refused a write in ${store.referenceFor(sessionId)} (${describeError(error)}); ` +
              'new results stay inline until it takes writes again, and what was offloaded or compacted before keeps applying',
          );
        }
        writesRefused = true;
      }
      if (!deferred.toolCallIds.includes(toolCallId)) deferred.toolCallIds.push(toolCallId);
    };

    const readRecord = (async (kind: RecordKind, span: RecordSpan) => {
      for (const name of knowledge.recordNames(kind, span)) {
        let record = knowledge.readRecord(name);
        if (record === undefined) {
          if (failed) return undefined;
          let text: string | undefined;
          try {
            text = await store.get(buildRecordKey(sessionId, name));
          } catch (error) {
            fail(error);
            return undefined;
          }
          const parsed = text === undefined ? { problem: 'it is gone' } : parseRecord(text, name);
          record = 'record' in parsed ? parsed.record : null;
          if ('problem' in parsed && text !== undefined) warnUnusable(name, parsed.problem);
          knowledge.keepRecord(name, record);
        }
        if (record !== null) return record;
      }
      return undefined;
    }) as ReadRecord;

    return {
      store,
      signal,
      readRecord,
      get failed() {
        return failed;
      },
      deferWrite,
      acceptedWrites() {
        writesRefused = false;
      },
      learn() {
        listing ??= (async () => {
          const prefix = `${sessionId}/`;
          const names: string[] = [];
          try {
            for await (const key of store.list(prefix))
              if (key.startsWith(prefix)) names.push(key.slice(prefix.length));
          } catch (error) {
            fail(error);
            return;
          }
          knowledge.learnListing(names);
        })();
        return listing;
      },
      async explain() {
        const results = unexplainedResults;
        const inputs = unexplainedInputs;
        unexplainedResults = [];
        unexplainedInputs = false;
        if (inputs || listing !== undefined) return this.learn();
        const lookups: string[] = [];
        for (const block of results) {
          // the names a direct and a batch offload of this result have: where applying decisions looks
          const texts = readStoredTexts(block.content);
          const hash = sha256Hex(ports.hashing, texts.text);
          lookups.push(
            buildContentName('direct', block.tool_use_id, hash),
            buildContentName('batch', block.tool_use_id, hash),
          );
          // a batch offload of an earlier version stored all-text blocks as their JSON
          if (texts.legacy !== undefined)
            lookups.push(buildContentName('batch', block.tool_use_id, sha256Hex(ports.hashing, texts.legacy)));
        }
        const names = lookups.filter((name) => !knowledge.hasContent(name));
        // asked together, learned in order: what the first failure leaves unlearned stays so
        const outcomes: Array<{ found: boolean } | { error: unknown }> = [];
        await runConcurrently(names.length, WRITE_CONCURRENCY, async (index) => {
          try {
            outcomes[index] = { found: (await store.stat(`${sessionId}/${names[index] as string}`)) !== undefined };
          } catch (error) {
            outcomes[index] = { error };
          }
        });
        for (const [index, outcome] of outcomes.entries()) {
          if ('error' in outcome) {
            fail(outcome.error);
            return;
          }
          if (outcome.found) knowledge.addContent(names[index] as string);
        }
      },
    };
  }

  /** Whether an assistant message holds a large input field of a call no stored name explains, not met before. */
  function mayHoldUnexplainedInputs(message: Message): boolean {
    if (message.role !== 'assistant' || typeof message.content === 'string') return false;
    const unknown = message.content.filter(
      (block) => isToolUseBlock(block) && !knowledge.knowsStem(toFileStem(block.id)),
    );
    if (unknown.length === 0) return false;
    const chars = countLargeInputChars(message, options.offload.directThreshold);
    if (chars === 0) return false;
    let unexplained = false;
    for (const block of unknown) {
      const judgedKey = `${(block as ToolUseBlock).id}\u0001${chars}`;
      if (judged.has(judgedKey)) continue;
      judged.add(judgedKey);
      unexplained = true;
    }
    return unexplained;
  }

  function mayNeedListing(message: Message, results: readonly ResultChars[]): boolean {
    if (typeof message.content === 'string') return false;
    if (results.length === 0) {
      const inputs = mayHoldUnexplainedInputs(message);
      unexplainedInputs ||= inputs;
      return inputs;
    }
    let unexplained = false;
    let position = 0;
    for (const block of message.content) {
      if (!isToolResultBlock(block)) continue;
      const chars = results[position++]?.chars ?? 0;
      if (
        chars < smallestOffloaded ||
        knowledge.knowsStem(toFileStem(block.tool_use_id)) ||
        isOffloadReference(block.content)
      )
        continue;
      // a result this manager judged already (a history rebuilt from JSON sends it again): nothing new
      const judgedKey = `${block.tool_use_id}\u0000${chars}`;
      if (judged.has(judgedKey)) continue;
      judged.add(judgedKey);
      unexplainedResults.push(block);
      unexplained = true;
    }
    return unexplained;
  }

  // assistant turns in what this manager's last call sent, and its length (undefined before its first)
  let sentAssistantTurns: number | undefined;
  let sentLength: number | undefined;
  const countAssistantTurns = (history: readonly Message[]): number =>
    history.reduce((turns, message) => (message.role === 'assistant' ? turns + 1 : turns), 0);

  async function match(history: readonly Message[], call: CallAccess): Promise<SessionMatch> {
    const found = await chain.match(history, knowledge, call.readRecord, applyTokens);
    return {
      messages: found.messages,
      replaced: found.replaced,
      calibration: found.calibration ?? { ratio: parts.initialRatio, samples: 0 },
      fingerprints: found.fingerprints,
    };
  }

  /** The figure recorded for the longest prefix of `history` of at most `maxMessages` messages, if any. */
  async function lastAnchor(
    history: readonly Message[],
    maxMessages: number,
    call: CallAccess,
    hashed: ReadonlyMap<number, string>,
  ): Promise<AnchorRecord | undefined> {
    const lengths = [
      ...new Set(
        knowledge
          .recordSpans('anchor')
          .map((span) => span.messages)
          .filter((messages) => messages > 0 && messages <= maxMessages),
      ),
    ].sort((left, right) => right - left);
    let prints: ReadonlyMap<number, string> = hashed;
    for (const length of lengths) {
      // matching hashed most of them already; the rest are hashed in one pass, at the first one missing
      if (!prints.has(length))
        prints = new Map([
          ...hashed,
          ...chain.fingerprints(
            history,
            lengths.filter((other) => !hashed.has(other)),
          ),
        ]);
      const span: RecordSpan = { messages: length, fingerprint: prints.get(length) as string };
      if (knowledge.recordNames('anchor', span).length === 0) continue;
      const record = await call.readRecord('anchor', span);
      if (record !== undefined) return record;
    }
    return undefined;
  }

  async function calibrate(
    history: readonly Message[],
    { calibration: matched, fingerprints }: Pick<SessionMatch, 'calibration' | 'fingerprints'>,
    usage: CheckedUsage | undefined,
    call: CallAccess,
  ): Promise<CalibrationInForce> {
    const latest = await lastAnchor(history, history.length, call, fingerprints);
    const fromFigure = latest !== undefined && latest.calibration.samples >= matched.samples;
    const inForce = fromFigure ? latest.calibration : matched;
    // found in the figure's record, or (a compaction or count record) somewhere in the history
    const foundAt = inForce.samples === 0 ? 0 : fromFigure ? latest.span.messages : history.length;
    // no figure, or this very figure was recorded (and learned from) already: a request sent again
    if (usage === undefined || call.failed || latest?.span.messages === usage.messageCount)
      return { inForce, learned: inForce, foundAt };
    const previous =
      latest !== undefined && latest.span.messages < usage.messageCount
        ? latest
        : await lastAnchor(history, usage.messageCount - 1, call, fingerprints);
    // the messages the figure learns from are tokenized in parts, the event loop running between them
    await counts.warm(history.slice(previous?.span.messages ?? usage.messageCount, usage.messageCount), call.signal);
    const learned = learnFromUsage(
      history,
      usage,
      previous === undefined ? undefined : { inputTokens: previous.inputTokens, messageCount: previous.span.messages },
      inForce,
      counts.of,
    );
    // a figure against a recorded one that moves the ratio little is not recorded: the next
    // figure learns against that same recorded one, over the messages of both
    if (previous !== undefined && !movesCalibration(inForce, learned)) return { inForce, learned: inForce, foundAt };
    const span: RecordSpan = {
      messages: usage.messageCount,
      fingerprint: fingerprints.get(usage.messageCount) ?? chain.fingerprint(history, usage.messageCount),
    };
    const record: AnchorRecord = {
      version: RECORD_VERSION,
      kind: 'anchor',
      span,
      inputTokens: usage.inputTokens,
      calibration: { ratio: learned.ratio, samples: learned.samples },
    };
    if (knowledge.recordNames('anchor', span).length === 0) await writeRecord(record, call);
    return { inForce, learned: record.calibration, foundAt: record.calibration.samples === 0 ? 0 : span.messages };
  }

  /** The first attempt of a span's records not known to be unusable. */
  function nextAttempt(kind: RecordKind, span: RecordSpan): number {
    let attempt = 0;
    for (const name of knowledge.recordNames(kind, span))
      if (name.attempt === attempt && knowledge.readRecord(name) === null) attempt += 1;
    return attempt;
  }

  /** Writes `record` at the first free attempt; resolves the record in force for its span (ours, or one written first), or `undefined` when nothing could be written or read. */
  async function writeRecord(
    record: SessionRecord,
    call: CallAccess,
  ): Promise<{ record: SessionRecord; won: boolean } | undefined> {
    for (let attempt = nextAttempt(record.kind, record.span); attempt < MAX_RECORD_ATTEMPTS; attempt += 1) {
      const name: RecordName = { kind: record.kind, span: record.span, attempt };
      const key = buildRecordKey(sessionId, name);
      try {
        const outcome = await callStore(call.store, key, () => call.store.putIfAbsent(key, serializeRecord(record)));
        if (outcome !== 'exists') {
          knowledge.addRecord(name, record);
          return { record, won: true };
        }
        // what is in force from here on is the record written first, not ours
        chain.reset();
        const text = await call.store.get(key);
        const parsed = text === undefined ? { problem: 'it is gone' } : parseRecord(text, name);
        if ('record' in parsed) {
          knowledge.addRecord(name, parsed.record);
          return { record: parsed.record, won: false };
        }
        warnUnusable(name, parsed.problem);
        knowledge.addRecord(name, null);
      } catch (error) {
        if (call.signal?.aborted) throw call.signal.reason;
        logger.warn(
          `context manager: could not write the record ${key} (${describeError(error)}); a later call may do this work again`,
        );
        return undefined;
      }
    }
    return undefined;
  }

  return {
    sessionId,
    knowledge,
    steps,
    beginCall,
    mayNeedListing,
    servedElsewhere: (history) =>
      sentAssistantTurns !== undefined && countAssistantTurns(history) > sentAssistantTurns + 1,
    countedElsewhere: (usage) => sentLength !== undefined && usage.messageCount !== sentLength,
    noteSent(output) {
      sentAssistantTurns = countAssistantTurns(output);
      sentLength = output.length;
    },
    match,
    calibrate,
    async rematch(working, call) {
      await call.learn();
      if (knowledge.longestSpan === 0) return undefined;
      const found = await match(working, call);
      return found.replaced > 0 ? found.messages : undefined;
    },
    async recordCompaction(working, spanLength, replacement, meta, call) {
      const fingerprint = chain.fingerprint(working, spanLength);
      const tokens: RecordedTokens | undefined =
        ports.tokenizerId === undefined
          ? undefined
          : { tokenizer: ports.tokenizerId, counts: replacement.map((message) => counts.of(message)) };
      const record: SessionRecord = {
        version: RECORD_VERSION,
        kind: 'compact',
        span: { messages: spanLength, fingerprint },
        messages: replacement,
        tokens,
        calibration: meta.calibration,
        archiveReference: meta.archiveReference,
        summarizer: meta.summarizer,
      };
      const written = await writeRecord(record, call);
      if (written === undefined || written.won || written.record.kind !== 'compact') {
        chain.remember(working.slice(0, spanLength), replacement, meta.calibration, knowledge);
        return { messages: replacement, won: true };
      }
      applyTokens(written.record.messages, written.record.tokens);
      return { messages: written.record.messages, won: false };
    },
    async recordCounts(output, call, progress) {
      uncounted += progress.tokenized;
      const { inForce, learned, carry } = progress;
      if (output.length === 0 || call.failed || (uncounted < COUNT_RECORD_MIN_TOKENS && !carry)) return;
      const calibration = learned.samples >= inForce.samples ? learned : inForce;
      const span: RecordSpan = { messages: output.length, fingerprint: chain.fingerprint(output, output.length) };
      // this very history was recorded already (by another process, or a call whose record is in force)
      if (knowledge.recordNames('count', span).length > 0) {
        uncounted = 0;
        return;
      }
      const tokens: RecordedTokens = {
        tokenizer: ports.tokenizerId ?? 'unknown',
        // the messages counted so far (a message never needed exactly stays uncounted: null), so a manager that meets this history again tokenizes none of them
        counts: output.map((message) => (ports.tokenizerId === undefined ? null : (counts.peek(message) ?? null))),
      };
      const written = await writeRecord({ version: RECORD_VERSION, kind: 'count', span, tokens, calibration }, call);
      if (written === undefined) return;
      uncounted = 0;
      if (written.won) chain.remember(output, output, calibration, knowledge);
    },
  };
}
