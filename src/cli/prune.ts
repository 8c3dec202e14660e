/**
 * `agent-context prune <dir> --older-than 7d [--yes] [--json]`: removes offloaded results,
 * compaction archives and session records older than an age, a session folder whole and only
 * when nothing in it changed within that age. A dry run unless `--yes` is given.
 */
import { stat } from 'node:fs/promises';
import { pruneOffloaded } from '../api/prune.js';
import type { PrunedEntry, PruneResult } from '../api/prune.js';
import { parseCommandArguments, readBooleanFlag, readStringFlag } from './arguments.js';
import type { CommandIo } from './command-io.js';
import { CliError, UsageError } from './errors.js';
import { describeOsError, writeStandardOutput } from './io.js';
import { formatQuantity, groupDigits } from '../core/text/figures.js';
import { formatBytes, padEnd, padStart } from './render/format-figures.js';
import { createTerminalStyle } from './render/terminal-style.js';
import type { TerminalStyle } from './render/terminal-style.js';
import { toTerminalJson, toTerminalText } from './render/terminal-text.js';

const PRUNE_FLAGS = {
  'older-than': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  json: { type: 'boolean' },
} as const;

/** Milliseconds per unit of a duration. */
const DURATION_UNITS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60 * 1000,
  h: 60 * 60 * 1000,
  d: 24 * 60 * 60 * 1000,
  w: 7 * 24 * 60 * 60 * 1000,
};

/**
 * Longest `--older-than`: 100,000,000 days, the span a JavaScript `Date` reaches on each side of
 * 1970, so the cutoff (now minus the age) is always a date.
 */
const MAX_OLDER_THAN_MS = 100_000_000 * DURATION_UNITS.d!;

/** Entries listed one per line in the report; the rest are counted (`--json` lists all). */
const MAX_LISTED_ENTRIES = 100;
/** Live sessions named on the report's line; the rest are counted (`--json` lists all). */
const MAX_LISTED_SESSIONS = 10;

/**
 * Milliseconds in a duration: a number and a unit, `30s`, `30m`, `12h`, `7d`, `2w` (`1.5d`
 * too), or `undefined` when `text` is not one.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(text.trim());
  if (match === null) return undefined;
  const milliseconds = Number(match[1]) * DURATION_UNITS[match[2]!]!;
  return Number.isFinite(milliseconds) ? milliseconds : undefined;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * `text` with every control character written as `\uXXXX`, so a file name never drives the
 * terminal (the CLI's one escaping rule, {@link toTerminalText}).
 */
export const escapeForTerminal = (text: string): string => toTerminalText(text);

/** `2026-01-02T03:04:05Z`: UTC, to the second. */
function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** Fails with exit 1 unless `dir` is a directory that can be looked at. */
async function assertReadableDirectory(dir: string): Promise<void> {
  let info;
  try {
    info = await stat(dir);
  } catch (error) {
    throw new CliError(`cannot read ${toTerminalText(dir)}: ${describeOsError(error)}`, undefined, { cause: error });
  }
  if (!info.isDirectory()) throw new CliError(`cannot read ${toTerminalText(dir)}: not a directory`);
}

function renderEntries(entries: readonly PrunedEntry[]): string[] {
  const listed = entries.slice(0, MAX_LISTED_ENTRIES);
  const keys = listed.map((entry) => toTerminalText(entry.key));
  const keyWidth = Math.min(60, Math.max(...keys.map((key) => key.length)));
  const sizes = listed.map((entry) => formatBytes(entry.size));
  const sizeWidth = Math.max(...sizes.map((size) => size.length));
  const lines = listed.map(
    (entry, index) =>
      `    ${padEnd(keys[index]!, keyWidth)}  ${padStart(sizes[index]!, sizeWidth)}  ${formatTime(entry.createdAt)}`,
  );
  if (entries.length > listed.length)
    lines.push(`    ... and ${formatQuantity(entries.length - listed.length, 'more file')} (--json lists them all)`);
  return lines;
}

/** The line naming the sessions kept whole, or none when every session was idle. */
function renderLiveSessions(liveSessions: readonly string[], age: string): string[] {
  if (liveSessions.length === 0) return [];
  const named = liveSessions.slice(0, MAX_LISTED_SESSIONS).map((session) => toTerminalText(session));
  const more = liveSessions.length - named.length;
  return [
    `  kept ${formatQuantity(liveSessions.length, 'live session')} whole (something in ${liveSessions.length === 1 ? 'it' : 'each'} changed within ${age}): ` +
      `${named.join(', ')}${more > 0 ? ` and ${more} more (--json lists them all)` : ''}`,
  ];
}

function renderReport(dir: string, age: string, cutoff: Date, result: PruneResult, style: TerminalStyle): string {
  const count = result.removed.length;
  const live = renderLiveSessions(result.liveSessions, age);
  const freed = `${formatBytes(result.freedBytes)}${result.freedBytes >= 1024 ? ` (${groupDigits(result.freedBytes)} bytes)` : ''}`;
  const lines = [
    `${style.bold('prune')}  ${toTerminalText(dir)}${result.dryRun ? ` ${style.dim('(dry run: nothing deleted)')}` : ''}`,
  ];
  const what = `older than ${age} (written before ${formatTime(cutoff)})`;
  if (count === 0) {
    lines.push(`  nothing ${what} to remove`, ...live);
    return lines.join('\n');
  }
  if (result.dryRun) {
    lines.push(
      `  would remove ${style.bold(formatQuantity(count, 'file'))} ${what}, freeing ${style.green(freed)}:`,
      ...renderEntries(result.removed),
      ...live,
    );
    lines.push(`  run again with --yes to delete ${count === 1 ? 'it' : 'them'}`);
  } else {
    lines.push(
      `  removed ${style.bold(formatQuantity(count, 'file'))} ${what}, freed ${style.green(freed)}:`,
      ...renderEntries(result.removed),
      ...live,
    );
  }
  return lines.join('\n');
}

export async function runPrune(args: readonly string[], io: CommandIo): Promise<void> {
  const parsed = parseCommandArguments('prune', args, PRUNE_FLAGS, 1);
  const dir = parsed.positionals[0];
  if (dir === undefined || dir === '')
    throw new UsageError('missing <dir> (the directory the offloaded results and archives are in)', 'prune');
  // the file store refuses such a path too; checked here so the message never echoes one raw
  if (CONTROL_CHARACTER.test(dir))
    throw new UsageError(
      `<dir> must not contain control characters, got ${toTerminalText(JSON.stringify(dir))}`,
      'prune',
    );
  const age = readStringFlag(parsed, 'older-than');
  if (age === undefined) throw new UsageError('missing --older-than <age> (e.g. 7d: only what is older goes)', 'prune');
  const olderThanMs = parseDuration(age);
  if (olderThanMs === undefined) {
    throw new UsageError(
      `--older-than must be a duration such as 30m, 12h, 7d or 2w, got ${toTerminalText(JSON.stringify(age))}`,
      'prune',
    );
  }
  if (olderThanMs > MAX_OLDER_THAN_MS) {
    throw new UsageError(
      `--older-than must be at most 100000000d (the range of a date), got ${toTerminalText(JSON.stringify(age))}`,
      'prune',
    );
  }
  await assertReadableDirectory(dir);

  const now = new Date();
  const result = await pruneOffloaded({
    outputDir: dir,
    olderThanMs,
    dryRun: !readBooleanFlag(parsed, 'yes'),
    now: () => now,
  });
  const cutoff = new Date(now.getTime() - olderThanMs);
  if (readBooleanFlag(parsed, 'json')) {
    const report = {
      dir,
      olderThan: age,
      olderThanMs,
      cutoff: cutoff.toISOString(),
      dryRun: result.dryRun,
      removed: result.removed.map((entry) => ({
        key: entry.key,
        reference: entry.reference,
        size: entry.size,
        createdAt: entry.createdAt.toISOString(),
      })),
      freedBytes: result.freedBytes,
      liveSessions: result.liveSessions,
    };
    // still valid JSON: those characters only occur inside strings, where \uXXXX means the same
    await writeStandardOutput(io.stdout, `${toTerminalJson(JSON.stringify(report, null, 2))}\n`);
    return;
  }
  await writeStandardOutput(
    io.stdout,
    `${renderReport(dir, toTerminalText(age.trim()), cutoff, result, createTerminalStyle(io.stdout))}\n`,
  );
}
