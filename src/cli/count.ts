/**
 * `agent-context count <file> [--json] [--format <name>]`: where the context goes.
 */
import {
  parseCommandArguments,
  readBooleanFlag,
  readListFlag,
  readNumberFlag,
  readStringFlag,
  requireInputPath,
} from './arguments.js';
import type { CommandIo } from './command-io.js';
import { writeStandardOutput } from './io.js';
import { measureContext } from './measure-context.js';
import { readTranscript, resolveFormatFlag } from './read-transcript.js';
import { renderCountReport } from './render/count-report.js';
import { createTerminalStyle, measureLineWidth } from './render/terminal-style.js';
import { toTerminalJson } from './render/terminal-text.js';

const COUNT_FLAGS = {
  json: { type: 'boolean' },
  'char-threshold': { type: 'string' },
  'ratio-threshold': { type: 'string' },
  'exclude-tools': { type: 'string' },
  limit: { type: 'string' },
  ratio: { type: 'string' },
  format: { type: 'string' },
} as const;

export async function runCount(args: readonly string[], io: CommandIo): Promise<void> {
  const parsed = parseCommandArguments('count', args, COUNT_FLAGS, 1);
  const path = requireInputPath(parsed, 'count');
  const options = {
    charThreshold: readNumberFlag(parsed, 'char-threshold', 'count'),
    ratioThreshold: readNumberFlag(parsed, 'ratio-threshold', 'count'),
    excludeTools: readListFlag(parsed, 'exclude-tools'),
    contextTokenLimit: readNumberFlag(parsed, 'limit', 'count'),
    compactThresholdRatio: readNumberFlag(parsed, 'ratio', 'count'),
  };
  const format = resolveFormatFlag(readStringFlag(parsed, 'format'), 'count');
  const transcript = await readTranscript(path, io, { format });
  const measurement = measureContext(transcript, options);
  if (readBooleanFlag(parsed, 'json')) {
    // Tool names, ids and previews come from the transcript: nothing in them may drive a terminal.
    await writeStandardOutput(io.stdout, `${toTerminalJson(JSON.stringify(measurement, null, 2))}\n`);
    return;
  }
  const report = renderCountReport(measurement, {
    source: transcript.source,
    style: createTerminalStyle(io.stdout),
    width: measureLineWidth(io.stdout),
  });
  await writeStandardOutput(io.stdout, `${report}\n`);
}
