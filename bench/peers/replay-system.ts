/**
 * How the peer benchmark drives a system through a transcript: request by request, as
 * `agent-context replay` does. Each assistant message of the transcript answers one model
 * request; before request `k` the system has seen the transcript up to that answer (the
 * answers before it, the tool results, the user's messages) and says what it sends. What it
 * sends is recorded in the canonical shape, in normal form, so that every system is counted
 * the same way.
 */
import { findRequestTurns } from '../../src/cli/replay/request-turns.js';
import type { CostModel } from '../../src/core/cost/cost-model.js';
import type { ContentStore } from '../../src/core/ports.js';
import type { Message } from '../../src/core/types.js';
import type { PeerTranscript } from './transcripts.js';

/** One system going through one transcript in one window. */
export interface PeerSession {
  /**
   * What the system sends for the request that transcript message `end` answers. Calls come
   * in order, each `end` larger than the last; the system has then seen `messages.slice(0, end)`.
   * Returns canonical messages in normal form, the system prompt included.
   */
  prepareRequest(end: number): Promise<Message[]>;
  /** Every text the system's store holds (offloaded results, archives, history files). */
  readStore(): Promise<string[]>;
  /** Frees what the session holds (temporary directories). */
  close(): Promise<void>;
}

/** A context-management system, as the benchmark runs it. */
export interface PeerSystem {
  /** Its row in the report. */
  name: string;
  /** Whether what it replaces can be read back from a store (else a removed result is gone). */
  hasStore: boolean;
  /**
   * Starts a conversation: `window` is the model's context size, in tokens; `costModel` the
   * prices the run is measured with (a system that decides by cost decides with them).
   */
  open(transcript: PeerTranscript, window: number, costModel?: CostModel): Promise<PeerSession>;
}

/** What a system sent for each request of a transcript, and what its store held at the end. */
export interface SystemRun {
  /** Per request, in order: the messages sent (canonical, normal form). */
  requests: Message[][];
  /** The store's texts at the end. */
  storedTexts: string[];
  /** Wall time of the replay, in milliseconds. */
  wallMs: number;
}

/** Replays every request of `transcript` through `system` in a `window`-token window, measured with `costModel`. */
export async function replayThrough(
  system: PeerSystem,
  transcript: PeerTranscript,
  window: number,
  costModel?: CostModel,
): Promise<SystemRun> {
  const started = performance.now();
  const session = await system.open(transcript, window, costModel);
  try {
    const requests: Message[][] = [];
    for (const end of findRequestTurns(transcript.messages)) requests.push(await session.prepareRequest(end));
    return { requests, storedTexts: await session.readStore(), wallMs: performance.now() - started };
  } finally {
    await session.close();
  }
}

/** Every value of a `ContentStore`. */
export async function readStoreTexts(store: ContentStore): Promise<string[]> {
  const texts: string[] = [];
  for await (const key of store.list('')) {
    const text = await store.get(key);
    if (text !== undefined) texts.push(text);
  }
  return texts;
}
