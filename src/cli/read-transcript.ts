/**
 * Reads and parses the input of a command.
 */
import { parseTranscript } from './formats/parse-transcript.js';
import type { Transcript } from './formats/transcript.js';
import { readInput } from './io.js';
import { createTerminalStyle } from './render/terminal-style.js';

/** A parsed transcript and where it came from. */
export interface SourcedTranscript extends Transcript {
  /** The file path as given, or `stdin`. */
  source: string;
}

/**
 * Reads `path` (`-` for standard input) and parses it, detecting the format. The parse's
 * warnings (a last line cut off mid-JSON) go to stderr, whatever the command prints.
 *
 * @throws {CliError} (exit 1) when the file cannot be read or parsed.
 */
export async function readTranscript(path: string): Promise<SourcedTranscript> {
  const input = await readInput(path);
  const transcript = parseTranscript(input.text, input.source);
  if (transcript.warnings !== undefined) {
    const style = createTerminalStyle(process.stderr);
    process.stderr.write(transcript.warnings.map((warning) => `${style.yellow('warning:')} ${warning}\n`).join(''));
  }
  return { ...transcript, source: input.source };
}
