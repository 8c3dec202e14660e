/**
 * The transcripts the peer benchmark replays: the corpus of real agent transcripts
 * (`bench/corpus/`), or the package's own samples (the demo's session, the command-line
 * fixtures in the formats they stand for, and a long session made of the demo's sample
 * repeated to 1 MB, so that every window fills up many times).
 *
 * Every transcript is put in one normal form before anyone sees it: a user message holding
 * tool results is split into one message per result (its text, if any, in a message of its
 * own). That is the shape LangChain's `ToolMessage`s and the AI SDK's tool messages come back
 * in, so every system's requests are counted in the same shape and their token figures
 * compare.
 */
import { join } from 'node:path';
import { buildOneMegabyteHistory, ROOT } from '../cli-process.js';
import { createProcessIo } from '../../src/cli/command-io.js';
import { countToolDefinitionTokens } from '../../src/cli/measure-context.js';
import { readTranscript } from '../../src/cli/read-transcript.js';
import type { Message } from '../../src/core/types.js';
import { isCorpusBuilt, loadCorpus, readProvenance } from '../corpus/load-corpus.js';
import { resolveCorpusDirectory, type ProvenanceEntry } from '../corpus/provenance.js';
import { normalizeMessages } from './normal-form.js';

export { normalizeMessages } from './normal-form.js';

/** One transcript to replay. */
export interface PeerTranscript {
  /** How the report names it. */
  name: string;
  /** The conversation in normal form, system prompt first when it has one. */
  messages: Message[];
  /** Tokens of the tool definitions every request sends besides the messages (0 when unknown). */
  toolDefinitionTokens: number;
  /** The agent harness that produced a corpus transcript (absent for the samples). */
  harness?: string;
}

/** The package's sample transcripts, relative to the repository root. */
const SAMPLE_FILES: ReadonlyArray<{ name: string; path: string }> = [
  { name: 'demo session (invoice-kit)', path: 'src/cli/sample/session.json' },
  { name: 'Claude Code session log', path: 'tests/fixtures/cli/claude-code-session.jsonl' },
  { name: 'request body with tools', path: 'tests/fixtures/cli/request-body.json' },
  { name: 'parallel calls and an error', path: 'tests/fixtures/cli/formats/anthropic-body.json' },
];

async function loadSample(name: string, path: string): Promise<PeerTranscript> {
  const transcript = await readTranscript(join(ROOT, path), createProcessIo());
  return {
    name,
    messages: normalizeMessages(transcript.messages),
    toolDefinitionTokens: countToolDefinitionTokens(transcript),
  };
}

/** Where the transcripts of a run come from. */
export type PeerTranscriptSet = 'samples' | 'corpus';

/** Options of {@link loadPeerTranscripts}. */
export interface LoadPeerTranscriptsOptions {
  /** A quick run: two samples, and a few corpus transcripts when the corpus is built. */
  quick: boolean;
  /**
   * What a full run replays: the corpus of real agent transcripts, or the package's samples.
   * @default 'corpus'
   */
  set?: PeerTranscriptSet;
}

/** How many corpus transcripts a quick run adds to the samples (the first of each harness). */
export const QUICK_CORPUS_TRANSCRIPTS = 3;

/** The first transcript of each harness in corpus order, up to `count`: a quick run's corpus share. */
async function loadQuickCorpus(count: number): Promise<PeerTranscript[]> {
  const firsts: ProvenanceEntry[] = [];
  for (const entry of await readProvenance())
    if (firsts.length < count && !firsts.some((first) => first.harness === entry.harness)) firsts.push(entry);
  const transcripts = await loadCorpus({ names: firsts.map((entry) => entry.name) });
  return transcripts.map((transcript) => ({ ...transcript }));
}

/**
 * The transcripts to replay. A full run replays the corpus (or, with `set: 'samples'`, every
 * sample and the 1 MB session); a quick run replays the demo session and the Claude Code log,
 * plus the first corpus transcript of each of three harnesses when the corpus is built (a
 * quick run must pass where it is not, so it says so and goes on with the samples).
 *
 * @throws {Error} in a full corpus run when the corpus is not built.
 */
export async function loadPeerTranscripts(options: LoadPeerTranscriptsOptions): Promise<PeerTranscript[]> {
  const set = options.set ?? 'corpus';
  if (!options.quick && set === 'corpus') return (await loadCorpus()).map((transcript) => ({ ...transcript }));
  const files = options.quick ? SAMPLE_FILES.slice(0, 2) : SAMPLE_FILES;
  const transcripts = await Promise.all(files.map(({ name, path }) => loadSample(name, path)));
  if (!options.quick) {
    transcripts.push({
      name: 'long session (the demo session repeated to 1 MB)',
      messages: normalizeMessages(await buildOneMegabyteHistory()),
      toolDefinitionTokens: 0,
    });
    return transcripts;
  }
  if (!(await isCorpusBuilt())) {
    console.log(`(corpus not built in ${resolveCorpusDirectory()}: the quick run replays the samples alone)`);
    return transcripts;
  }
  return [...transcripts, ...(await loadQuickCorpus(QUICK_CORPUS_TRANSCRIPTS))];
}
