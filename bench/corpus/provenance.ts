/**
 * The corpus's record of itself: `bench/corpus/provenance.json`, committed, lists every
 * transcript with where it came from and the digest of its converted content. The loader and
 * the test check the transcript files against it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CorpusSource } from './corpus-sources.js';

/** The repository root. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The committed provenance file. */
export const PROVENANCE_FILE = join(ROOT, 'bench/corpus/provenance.json');

/** Where the build writes the transcripts by default (not committed: the files come from other repositories). */
export const DEFAULT_CORPUS_DIRECTORY = join(ROOT, 'bench/corpus/transcripts');

/** Where a project keeps data beside its repository, shared by every checkout and CI. */
const SHARED_CORPUS_DIRECTORY = join(ROOT, '..', 'shared', 'corpus', 'transcripts');

/** One transcript of the corpus: its source, and what the build made of it. */
export interface ProvenanceEntry extends CorpusSource {
  /** The transcript's file in the corpus directory. */
  file: string;
  /** Size of the source file, in bytes. */
  sourceBytes: number;
  /** Hex SHA-256 of the source file's bytes. */
  sourceSha256: string;
  /** Hex SHA-256 of the transcript's JSON text (the file's content once gunzipped). */
  contentSha256: string;
  /** Canonical messages (before the bench's normal form splits tool results apart). */
  messages: number;
  /** `tool_result` blocks. */
  toolResults: number;
  /** Characters of text, thinking, tool input and tool results, as the package counts them. */
  characters: number;
  /** The day (UTC) the content last changed. */
  convertedAt: string;
}

/** The content of `provenance.json`. */
export interface CorpusProvenance {
  /** Every transcript of the corpus, in the order the corpus lists them. */
  transcripts: ProvenanceEntry[];
}

/**
 * The directory holding the corpus's transcript files: `ACO_CORPUS_DIR` when set, else
 * `bench/corpus/transcripts` when it exists, else `shared/corpus/transcripts` beside the
 * repository when that exists, else `bench/corpus/transcripts` (where the build writes).
 */
export function resolveCorpusDirectory(environment: NodeJS.ProcessEnv = process.env): string {
  const fromEnvironment = environment.ACO_CORPUS_DIR;
  if (fromEnvironment !== undefined && fromEnvironment !== '') return fromEnvironment;
  if (existsSync(DEFAULT_CORPUS_DIRECTORY)) return DEFAULT_CORPUS_DIRECTORY;
  if (existsSync(SHARED_CORPUS_DIRECTORY)) return SHARED_CORPUS_DIRECTORY;
  return DEFAULT_CORPUS_DIRECTORY;
}
