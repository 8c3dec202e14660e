/**
 * `agent-context count <file> [--json]`: where the context goes.
 */
import { parseCommandArguments, readBooleanFlag, readListFlag, readNumberFlag, requireInputPath } from './arguments.js';
import { writeStandardOutput } from './io.js';
import { measureContext } from './measure-context.js';
import { readTranscript } from './read-transcript.js';
import { renderCountReport } from './render/count-report.js';
import { createTerminalStyle, measureLineWidth } from './render/terminal-style.js';

const COUNT_FLAGS = {
  json: { type: 'boolean' },
  'char-threshold': { type: 'string' },
  'ratio-threshold': { type: 'string' },
  'exclude-tools': { type: 'string' },
  limit: { type: 'string' },
  ratio: { type: 'string' },
} as const;

/** Runs `count` with its arguments. */
export async function runCount(args: readonly string[]): Promise<void> {
  const parsed = parseCommandArguments('count', args, COUNT_FLAGS, 1);
  const path = requireInputPath(parsed, 'count');
  const options = {
    charThreshold: readNumberFlag(parsed, 'char-threshold', 'count'),
    ratioThreshold: readNumberFlag(parsed, 'ratio-threshold', 'count'),
    excludeTools: readListFlag(parsed, 'exclude-tools'),
    contextTokenLimit: readNumberFlag(parsed, 'limit', 'count'),
    compactThresholdRatio: readNumberFlag(parsed, 'ratio', 'count'),
  };
  const transcript = await readTranscript(path);
  const measurement = measureContext(transcript, options);
  if (readBooleanFlag(parsed, 'json')) {
    await writeStandardOutput(`${JSON.stringify(measurement, null, 2)}\n`);
    return;
  }
  const report = renderCountReport(measurement, {
    source: transcript.source,
    style: createTerminalStyle(process.stdout),
    width: measureLineWidth(process.stdout),
  });
  await writeStandardOutput(`${report}\n`);
}
