/**
 * What a corpus transcript file holds, and the one way it is written: canonical messages as
 * JSON, gzipped. Building and loading share this file, so a transcript's digest means the same
 * thing to the script that wrote it, the loader and the test that checks it.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Message } from '../../src/core/types.js';

/** The agent harnesses the corpus holds transcripts of. */
export type CorpusHarness = 'claude-code' | 'codex-cli' | 'mini-swe-agent' | 'openhands' | 'swe-agent';

/** One transcript as the corpus stores it. */
export interface CorpusFile {
  /** Unique short name: `<harness>-<short-name>`, also the file's name without `.json.gz`. */
  name: string;
  /** The harness that produced the session. */
  harness: CorpusHarness;
  /** The conversation in the package's canonical messages, system prompt first when it has one. */
  messages: Message[];
  /** The tool definitions the session's requests sent, when the source records them. */
  tools?: unknown[];
}

/** The JSON text of a corpus file: the text its digest is taken of. */
export function serializeCorpusFile(file: CorpusFile): string {
  const { name, harness, messages, tools } = file;
  return JSON.stringify(tools === undefined ? { name, harness, messages } : { name, harness, messages, tools });
}

/** The gzipped bytes written for a corpus file (Node's gzip sets no time stamp, so equal text gives equal bytes). */
export function compressCorpusText(text: string): Buffer {
  return gzipSync(Buffer.from(text, 'utf8'), { level: 9 });
}

/** The JSON text inside a corpus file's gzipped bytes. */
export function decompressCorpusBytes(bytes: Uint8Array): string {
  return gunzipSync(bytes).toString('utf8');
}

/** Hex SHA-256 of bytes or of a text's UTF-8 bytes. */
export function digest(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The file name of a transcript in the corpus directory. */
export function corpusFileName(name: string): string {
  return `${name}.json.gz`;
}
