import type { FormatName, MessageFormat } from '../core/format.js';
import { formats, resolveFormat } from '../formats/index.js';
import type { CommandIo } from './command-io.js';
import { parseTranscript } from './formats/parse-transcript.js';
import type { ParsedTranscript } from './formats/parse-transcript.js';
import { UsageError } from './errors.js';
import { readInput } from './io.js';
import { createTerminalStyle } from './render/terminal-style.js';
import { toTerminalText } from './render/terminal-text.js';

/** A parsed transcript and where it came from. */
export interface SourcedTranscript extends ParsedTranscript {
  /** The file path as given, or `stdin`. */
  source: string;
}

/** Claude Code reads files with `Read`, whose input names the path `file_path`. */
const CLAUDE_CODE_READS = { readToolNames: ['Read'], pathField: 'file_path' } as const;

/**
 * How the library is to find the files a transcript's history read (to restore them, to name
 * them in a summary): the `Read` tool and its `file_path` field for a Claude Code session log,
 * the library's own defaults for anything else.
 */
export function selectFileReadOptions(transcript: Pick<ParsedTranscript, 'shape'>): Partial<typeof CLAUDE_CODE_READS> {
  return transcript.shape === 'claude-code' ? CLAUDE_CODE_READS : {};
}

const FORMAT_NAMES: readonly string[] = Object.values(formats).map((format) => format.name);

/**
 * The message format `--format` names, or `undefined` (detect it) when the flag is absent.
 *
 * @throws {UsageError} for a name that is not a format: `--format must be one of anthropic, ..., got "x"`.
 */
export function resolveFormatFlag(name: string | undefined, command: string): MessageFormat | undefined {
  if (name === undefined) return undefined;
  if (!FORMAT_NAMES.includes(name))
    throw new UsageError(`--format must be one of ${FORMAT_NAMES.join(', ')}, got ${JSON.stringify(name)}`, command);
  return resolveFormat(name as FormatName);
}

/** Options of {@link readTranscript}. */
export interface ReadTranscriptFileOptions {
  /** The message format (`--format`); detected from the content when absent. */
  format?: MessageFormat | undefined;
}

/**
 * Reads `path` (`-` for standard input) and parses it, detecting the shape and, unless given,
 * the message format. The parse's warnings (a last line cut off mid-JSON) go to stderr,
 * whatever the command prints.
 *
 * @throws {CliError} (exit 1) when the file cannot be read or parsed.
 */
export async function readTranscript(
  path: string,
  io: Pick<CommandIo, 'stdin' | 'stderr'>,
  options: ReadTranscriptFileOptions = {},
): Promise<SourcedTranscript> {
  const input = await readInput(path, io.stdin);
  const transcript = parseTranscript(input.text, input.source, { format: options.format });
  if (transcript.warnings !== undefined) {
    const style = createTerminalStyle(io.stderr);
    io.stderr.write(
      transcript.warnings.map((warning) => `${style.yellow('warning:')} ${toTerminalText(warning)}\n`).join(''),
    );
  }
  return { ...transcript, source: input.source };
}
