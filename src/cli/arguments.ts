/**
 * Argument parsing on `node:util`'s `parseArgs` (strict), with its errors turned into usage
 * errors (exit 2) that name the flag, and helpers for numeric and list flags.
 */
import { parseArgs } from 'node:util';
import { parseNumberText } from '../core/options/env.js';
import type { NumberRule } from '../core/options/env.js';
import { InvalidOptionError } from '../core/errors.js';
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
  positionals: readonly string[];
}

const COMMON_FLAGS: Readonly<Record<string, FlagDefinition>> = {
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
    // parseArgs takes a value starting with "-" for the next flag, unless it is attached.
    if (message.includes('argument is ambiguous'))
      return `${flag} needs a value (for one starting with "-", write ${flag}=<value>)`;
    return `${flag} needs a value`;
  }
  return message.split('\n')[0] ?? message;
}

/** A negative number, as a value (`-5`, `-.5`, `-1e3`): no flag of ours looks like one. */
const NEGATIVE_NUMBER_LIKE = /^-\.?\d/;

/**
 * Attaches a negative-number value to its string flag (`--char-threshold -5` becomes
 * `--char-threshold=-5`), which `parseArgs` would otherwise read as a flag and report as a
 * missing value; the value then gets the message its range calls for. Stops at `--`.
 */
function attachNegativeValues(args: readonly string[], flags: Readonly<Record<string, FlagDefinition>>): string[] {
  const longNames = new Map<string, string>();
  for (const [name, definition] of Object.entries(flags)) {
    if (definition.type !== 'string') continue;
    longNames.set(`--${name}`, name);
    if (definition.short !== undefined) longNames.set(`-${definition.short}`, name);
  }
  const attached: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') {
      attached.push(...args.slice(index));
      break;
    }
    const name = longNames.get(arg);
    const next = args[index + 1];
    if (name !== undefined && next !== undefined && NEGATIVE_NUMBER_LIKE.test(next)) {
      attached.push(`--${name}=${next}`);
      index += 1;
    } else {
      attached.push(arg);
    }
  }
  return attached;
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
    parsed = parseArgs({
      args: attachNegativeValues(args, flags),
      options: { ...COMMON_FLAGS, ...flags },
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (error) {
    throw new UsageError(describeParseError(error), command);
  }
  if (parsed.values.help !== true && parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}`, command);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

export function readStringFlag(parsed: CommandArguments, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function readBooleanFlag(parsed: CommandArguments, name: string): boolean {
  return parsed.values[name] === true;
}

/**
 * The numeric flags and the rule of the library option each one sets. The library checks its
 * options too, but its message names the option (`charThreshold`); checking here first lets
 * the message name the flag the user typed. A unit test holds these rules to the library's.
 */
export const NUMBER_FLAG_RULES = {
  /** `charThreshold`: a block of 0 chars is never offloaded. */
  'char-threshold': { min: 1 },
  /** `ratioThreshold`. */
  'ratio-threshold': { min: 0, max: 1 },
  /** `contextTokenLimit`. */
  limit: { min: 1, integer: true },
  /** `compactThresholdRatio`. */
  ratio: { min: 0, max: 1 },
} as const satisfies Readonly<Record<string, NumberRule>>;

/** A flag that takes a number. */
export type NumberFlagName = keyof typeof NUMBER_FLAG_RULES;

/**
 * A numeric flag's value: the whole trimmed text must be a number in decimal notation
 * (`12abc`, `0x10` and `1_000` are not numbers) within the flag's rule
 * ({@link NUMBER_FLAG_RULES}).
 *
 * @throws {UsageError} naming the flag and quoting the text:
 * `--char-threshold must be a number >= 1, got "-5"`.
 */
export function readNumberFlag(parsed: CommandArguments, name: NumberFlagName, command: string): number | undefined {
  const raw = readStringFlag(parsed, name);
  if (raw === undefined) return undefined;
  try {
    return parseNumberText(`--${name}`, raw, NUMBER_FLAG_RULES[name]);
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(error.message, command);
    throw error;
  }
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
