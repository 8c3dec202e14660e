/**
 * Where a command's stats go: to stderr when the new history goes to stdout, so
 * that `agent-context offload x.json --out d > new.json` gets clean JSON; to stdout when `-o`
 * names a file.
 */
import type { CommandIo, CommandOutput } from './command-io.js';
import { createTerminalStyle } from './render/terminal-style.js';
import type { TerminalStyle } from './render/terminal-style.js';

/** A stream for the stats, with the style fitting it. */
export interface ReportStream {
  /** Writes one or more lines. */
  writeLines(lines: readonly string[]): void;
  /** Colours for that stream. */
  style: TerminalStyle;
  /** The underlying stream. */
  stream: CommandOutput;
}

/** The stats stream: stdout when the history goes to a file (`-o`), else stderr. */
export function selectReportStream(historyToFile: boolean, io: CommandIo): ReportStream {
  const stream = historyToFile ? io.stdout : io.stderr;
  return {
    stream,
    style: createTerminalStyle(stream),
    writeLines(lines) {
      stream.write(`${lines.join('\n')}\n`);
    },
  };
}
