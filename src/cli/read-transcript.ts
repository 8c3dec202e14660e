/**
 * Reads and parses the input of a command.
 */
import { parseTranscript } from './formats/parse-transcript.js';
import type { Transcript } from './formats/transcript.js';
import { readInput } from './io.js';

/** A parsed transcript and where it came from. */
export interface SourcedTranscript extends Transcript {
  /** The file path as given, or `stdin`. */
  source: string;
}

/**
 * Reads `path` (`-` for standard input) and parses it, detecting the format.
 *
 * @throws {CliError} (exit 1) when the file cannot be read or parsed.
 */
export async function readTranscript(path: string): Promise<SourcedTranscript> {
  const input = await readInput(path);
  return { ...parseTranscript(input.text, input.source), source: input.source };
}
