/**
 * Argument parsing on `node:util`'s `parseArgs` (strict), with its errors turned into usage
 * errors (exit 2) that name the flag, and helpers for numeric and list flags.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './errors.js';

/** One flag of a command, as `parseArgs` takes it. */
export interface FlagDefinition {
  type: 'string' | 'boolean';
  short?: string;
}

/** The flags and positionals a command was given. */
export interface CommandArguments {
  /** Flag values by name (`undefined` when absent). */
  values: Readonly<Record<string, string | boolean | undefined>>;
  /** Positional arguments. */
  positionals: readonly string[];
}

/** Flags every command takes. */
export const COMMON_FLAGS: Readonly<Record<string, FlagDefinition>> = {
  help: { type: 'boolean', short: 'h' },
  debug: { type: 'boolean' },
};

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const flag = /'([^']+)'/.exec(message)?.[1]?.replace(/ <value>$/, '');
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) return `unknown option ${flag}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined) {
    if (message.includes('does not take an argument')) return `${flag} does not take a value`;
    return `${flag} needs a value`;
  }
  return message.split('\n')[0] ?? message;
}

/**
 * Parses `args` for `command`. `--help` and `--debug` are always accepted.
 *
 * @throws {UsageError} for an unknown flag, a flag missing its value, a value given to a
 * boolean flag, or more positionals than `maxPositionals`.
 */
export function parseCommandArguments(
  command: string,
  args: readonly string[],
  flags: Readonly<Record<string, FlagDefinition>>,
  maxPositionals: number,
): CommandArguments {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options: { ...COMMON_FLAGS, ...flags }, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (error) {
    throw new UsageError(describeParseError(error), command);
  }
  if (parsed.values.help !== true && parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}`, command);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

/** A string flag's value, or `undefined`. */
export function readStringFlag(parsed: CommandArguments, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** Whether a boolean flag was given. */
export function readBooleanFlag(parsed: CommandArguments, name: string): boolean {
  return parsed.values[name] === true;
}

/**
 * A numeric flag's value: the whole trimmed text must be a number (`12abc` is not 12).
 * Ranges are the library's to check (its error names the option).
 *
 * @throws {UsageError} when the text is not a number.
 */
export function readNumberFlag(parsed: CommandArguments, name: string, command: string): number | undefined {
  const raw = readStringFlag(parsed, name);
  if (raw === undefined) return undefined;
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number, got ${JSON.stringify(raw)}`, command);
  return value;
}

/** A comma-separated list flag (`--exclude-tools Read,Grep`), blanks dropped, or `undefined`. */
export function readListFlag(parsed: CommandArguments, name: string): string[] | undefined {
  const raw = readStringFlag(parsed, name);
  if (raw === undefined) return undefined;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * The one input file of a command (`-` is standard input).
 *
 * @throws {UsageError} when it is missing.
 */
export function requireInputPath(parsed: CommandArguments, command: string): string {
  const path = parsed.positionals[0];
  if (path === undefined) throw new UsageError('missing <file> (a path, or - for standard input)', command);
  return path;
}
