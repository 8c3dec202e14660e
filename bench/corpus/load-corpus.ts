/**
 * Loads the corpus of real agent transcripts for the benchmarks: each file listed in
 * `provenance.json`, checked against its digest, in the bench's normal form.
 *
 * ```ts
 * const transcripts = await loadCorpus();            // every transcript
 * const three = await loadCorpus({ limit: 3 });      // the first three, for a quick run
 * ```
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { countToolDefinitionTokens } from '../../src/cli/measure-context.js';
import { normalizeMessages } from '../peers/normal-form.js';
import { decompressCorpusBytes, digest, type CorpusFile, type CorpusHarness } from './corpus-file.js';
import { PROVENANCE_FILE, resolveCorpusDirectory, type CorpusProvenance, type ProvenanceEntry } from './provenance.js';

/** One corpus transcript, ready to replay. */
export interface CorpusTranscript {
  /** `<harness>-<short-name>`. */
  name: string;
  /** The harness that produced it. */
  harness: CorpusHarness;
  /** The conversation in the bench's normal form (one message per tool result), system prompt first. */
  messages: CorpusFile['messages'];
  /** Tokens of the tool definitions every request sends besides the messages (0 when the source has none). */
  toolDefinitionTokens: number;
}

/** Options of {@link loadCorpus}. */
export interface LoadCorpusOptions {
  /**
   * The directory of transcript files.
   * @default `ACO_CORPUS_DIR`, else `bench/corpus/transcripts`, else `../shared/corpus/transcripts`
   */
  directory?: string;
  /** Load only the first `limit` transcripts of `provenance.json` (a quick run). */
  limit?: number;
  /** Load only these harnesses. */
  harnesses?: readonly CorpusHarness[];
  /** Load only the transcripts of these names (in corpus order). */
  names?: readonly string[];
}

/** Reads `provenance.json`: every transcript of the corpus, in order. */
export async function readProvenance(): Promise<ProvenanceEntry[]> {
  const provenance = JSON.parse(await readFile(PROVENANCE_FILE, 'utf8')) as CorpusProvenance;
  return provenance.transcripts;
}

/** Whether every transcript `provenance.json` lists has its file in `directory` (whatever its content). */
export async function isCorpusBuilt(directory: string = resolveCorpusDirectory()): Promise<boolean> {
  return (await readProvenance()).every((entry) => existsSync(join(directory, entry.file)));
}

/**
 * Reads one transcript file and checks it against its provenance entry.
 *
 * @throws {Error} when the file is missing (naming the build command) or its content's digest
 * is not the one provenance records.
 */
export async function readCorpusFile(directory: string, entry: ProvenanceEntry): Promise<CorpusFile> {
  const path = join(directory, entry.file);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new Error(
      `corpus: ${path} is missing; build the corpus (npx tsx bench/corpus/build-corpus.ts --sources <dir>) or set ACO_CORPUS_DIR`,
      { cause: error },
    );
  }
  const text = decompressCorpusBytes(bytes);
  const sha = digest(text);
  if (sha !== entry.contentSha256)
    throw new Error(`corpus: ${path} has content sha256 ${sha}, provenance.json expects ${entry.contentSha256}`);
  return JSON.parse(text) as CorpusFile;
}

/**
 * The corpus's transcripts, in `provenance.json`'s order, each in the bench's normal form.
 *
 * @throws {Error} when a file is missing or differs from its provenance.
 */
export async function loadCorpus(options: LoadCorpusOptions = {}): Promise<CorpusTranscript[]> {
  const directory = options.directory ?? resolveCorpusDirectory();
  let entries = await readProvenance();
  if (options.harnesses !== undefined) entries = entries.filter((entry) => options.harnesses!.includes(entry.harness));
  if (options.names !== undefined) entries = entries.filter((entry) => options.names!.includes(entry.name));
  if (options.limit !== undefined) entries = entries.slice(0, options.limit);
  const transcripts: CorpusTranscript[] = [];
  for (const entry of entries) {
    const file = await readCorpusFile(directory, entry);
    transcripts.push({
      name: file.name,
      harness: file.harness,
      messages: normalizeMessages(file.messages),
      toolDefinitionTokens: countToolDefinitionTokens({ toolDefinitions: file.tools }),
    });
  }
  return transcripts;
}
