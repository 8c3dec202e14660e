/**
 * Strict parsing of option values and environment variables: the trimmed
 * text must be a finite number in decimal notation (`Number` alone would also take `0x10`,
 * `0b1` and `0o7`); unset or empty means the default; anything else rejects, naming the
 * variable. The environment itself is passed in, so the core never reads `process`.
 */
import { describeValue, InvalidOptionError } from '../errors.js';

/** A snapshot of environment variables, as `process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Bounds a numeric option must respect. */
export interface NumberRule {
  /** Smallest accepted value (inclusive). */
  min?: number;
  /** Values must be greater than this (exclusive), e.g. `0` for a positive factor. */
  above?: number;
  /** Largest accepted value (inclusive). */
  max?: number;
  /** Only whole numbers. */
  integer?: boolean;
}

/** How a rule reads in a message: `a number in [0, 1]`, `an integer >= 1`. */
/** A number rule in words, as errors and the docs' option tables say it: `an integer >= 1`. */
export function describeNumberRule(rule: NumberRule): string {
  const kind = rule.integer ? 'an integer' : 'a number';
  if (rule.min !== undefined && rule.max !== undefined) return `${kind} in [${rule.min}, ${rule.max}]`;
  if (rule.min !== undefined) return `${kind} >= ${rule.min}`;
  if (rule.above !== undefined) return `${kind} > ${rule.above}`;
  if (rule.max !== undefined) return `${kind} <= ${rule.max}`;
  return kind;
}

/**
 * Decimal notation only: an optional sign, digits with an optional fraction (`5`, `.5`, `5.`,
 * `5.0`), an optional exponent (`1e3`, `2.5E-2`). No hex, binary or octal prefix, no `_`
 * separator, no `Infinity`.
 */
const DECIMAL_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a number written in decimal notation, surrounding whitespace ignored.
 *
 * @returns The number, or `undefined` when the text is not a finite decimal number
 * (`"0x10"`, `"1_000"`, `"Infinity"`, `"1e400"`, `""`).
 *
 * @example
 * parseDecimalNumber(' 2.5e3 '); // 2500
 * parseDecimalNumber('0x10'); // undefined
 */
export function parseDecimalNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DECIMAL_NUMBER.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : undefined;
}

function checkNumber(name: string, value: number, raw: unknown, rule: NumberRule): number {
  const ok =
    Number.isFinite(value) &&
    (rule.min === undefined || value >= rule.min) &&
    (rule.above === undefined || value > rule.above) &&
    (rule.max === undefined || value <= rule.max) &&
    (!rule.integer || Number.isInteger(value));
  if (!ok) throw new InvalidOptionError(`${name} must be ${describeNumberRule(rule)}, got ${describeValue(raw)}`);
  return value;
}

/**
 * Parses the text of a numeric setting (an environment variable, a command-line flag) and
 * checks it against `rule`.
 *
 * @param name The name to put in the message: the variable or the flag as the user wrote it.
 * @throws {InvalidOptionError} naming `name` and quoting the text when it is not a decimal
 * number or breaks the rule: `OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "0x10"`.
 */
export function parseNumberText(name: string, text: string, rule: NumberRule = {}): number {
  return checkNumber(name, parseDecimalNumber(text) ?? Number.NaN, text, rule);
}

/** A numeric setting: its option name, its environment variable if any, its default, its rule. */
export interface NumberSetting {
  readonly option: string;
  readonly env?: string | undefined;
  readonly default: number;
  readonly rule: NumberRule;
}

/**
 * Resolves a numeric setting: the option value when given, else the environment variable,
 * else the default. Throws {@link InvalidOptionError} naming the option or variable. Options
 * of the option table go through `resolveTableOption` (option-table.ts), which calls this.
 */
export function resolveNumberSetting(setting: NumberSetting, optionValue: unknown, env: Environment = {}): number {
  const { option, rule } = setting;
  if (optionValue !== undefined) {
    if (typeof optionValue !== 'number') {
      throw new InvalidOptionError(`${option} must be ${describeNumberRule(rule)}, got ${describeValue(optionValue)}`);
    }
    return checkNumber(option, optionValue, optionValue, rule);
  }
  if (setting.env === undefined) return setting.default;
  const raw = env[setting.env];
  if (raw === undefined || raw.trim() === '') return setting.default;
  return parseNumberText(setting.env, raw, rule);
}

/** Resolves a string setting: the option, else the non-empty environment variable, else the default. */
function resolveString(
  optionName: string,
  optionValue: unknown,
  env: Environment,
  envName: string | undefined,
  fallback: string,
): string {
  if (optionValue !== undefined) {
    if (typeof optionValue !== 'string' || optionValue.trim() === '') {
      throw new InvalidOptionError(`${optionName} must be a non-empty string, got ${describeValue(optionValue)}`);
    }
    return optionValue;
  }
  const raw = envName === undefined ? undefined : env[envName];
  return raw === undefined || raw.trim() === '' ? fallback : raw.trim();
}

/** Resolves an optional string setting: the option, else the non-empty environment variable, else `undefined`. */
export function resolveOptionalString(
  optionName: string,
  optionValue: unknown,
  env: Environment,
  envName: string | undefined,
): string | undefined {
  if (optionValue !== undefined) return resolveString(optionName, optionValue, env, envName, '');
  const raw = envName === undefined ? undefined : env[envName];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** Checks that an option, when given, is an array of strings. */
export function resolveStringList(
  optionName: string,
  optionValue: unknown,
  fallback: readonly string[],
): readonly string[] {
  if (optionValue === undefined) return fallback;
  if (!Array.isArray(optionValue) || optionValue.some((item) => typeof item !== 'string')) {
    throw new InvalidOptionError(`${optionName} must be an array of strings, got ${describeValue(optionValue)}`);
  }
  return optionValue as string[];
}

/** Checks that a required string option is a non-empty string. */
export function requireString(optionName: string, optionValue: unknown): string {
  if (typeof optionValue !== 'string' || optionValue === '') {
    throw new InvalidOptionError(`${optionName} must be a non-empty string, got ${describeValue(optionValue)}`);
  }
  return optionValue;
}
