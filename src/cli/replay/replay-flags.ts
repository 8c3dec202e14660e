/**
 * Flags of `replay` and `eval`: the window as a token count (`30000`, `100k`, `1.5m`), the
 * price per million input tokens, the direct-offload threshold, and the summarizer, which is
 * the offline extractive one unless `--provider` names another: a replay may compact many
 * times, and an LLM should not be paid for that unless the user asks.
 */
import { parseNumberText } from '../../core/options/env.js';
import type { NumberRule } from '../../core/options/env.js';
import { InvalidOptionError } from '../../core/errors.js';
import { readStringFlag } from '../arguments.js';
import type { CommandArguments } from '../arguments.js';
import { UsageError } from '../errors.js';
import { chooseSummarizer } from '../summarizer-choice.js';
import type { SummarizerChoice } from '../summarizer-choice.js';

export { DEFAULT_PRICE_PER_MTOK } from '../../core/cost/cost-model.js';

/** `k` and `m` after a token count: `100k` is 100,000, `1.5m` is 1,500,000. */
const TOKEN_COUNT = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([kKmM]?)\s*$/;
const MULTIPLIERS: Readonly<Record<string, number>> = { '': 1, k: 1_000, m: 1_000_000 };

/**
 * A token count as people write it: `30000`, `100k`, `1.5m`. It must come to a whole number
 * of at least 1.
 *
 * @returns The count, or `undefined` when the text is not one.
 */
export function parseTokenCount(text: string): number | undefined {
  const match = TOKEN_COUNT.exec(text);
  if (match === null) return undefined;
  const multiplier = MULTIPLIERS[(match[2] ?? '').toLowerCase()] ?? 1;
  // 1.5k is 1500 exactly, not 1500.0000000000002
  const value = Number((Number(match[1]) * multiplier).toFixed(6));
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}

/**
 * A token-count flag's value (`--window 100k`), or `undefined` when absent.
 *
 * @throws {UsageError} naming the flag and quoting the text: `--window must be a whole number
 * of tokens >= 1 such as 30000, 100k or 1.5m, got "abc"`.
 */
export function readTokenCountFlag(parsed: CommandArguments, name: string, command: string): number | undefined {
  const raw = readStringFlag(parsed, name);
  if (raw === undefined) return undefined;
  const value = parseTokenCount(raw);
  if (value === undefined)
    throw new UsageError(
      `--${name} must be a whole number of tokens >= 1 such as 30000, 100k or 1.5m, got ${JSON.stringify(raw)}`,
      command,
    );
  return value;
}

/**
 * A numeric flag's value within `rule`, or `undefined` when absent.
 *
 * @throws {UsageError} naming the flag: `--price-per-mtok must be a number >= 0, got "-1"`.
 */
export function readRuledNumberFlag(
  parsed: CommandArguments,
  name: string,
  rule: NumberRule,
  command: string,
): number | undefined {
  const raw = readStringFlag(parsed, name);
  if (raw === undefined) return undefined;
  try {
    return parseNumberText(`--${name}`, raw, rule);
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(error.message, command);
    throw error;
  }
}

/**
 * The summarizer `--provider` names, else the offline extractive one (whatever the
 * environment holds: `ANTHROPIC_API_KEY` does not turn a replay into paid requests).
 *
 * @throws {UsageError} for an unknown provider, `--model` or `--base-url` without an LLM
 * provider, `--provider openai` without a model.
 */
export function chooseReplaySummarizer(parsed: CommandArguments, command: string): SummarizerChoice {
  const provider = readStringFlag(parsed, 'provider');
  const model = readStringFlag(parsed, 'model');
  const baseURL = readStringFlag(parsed, 'base-url');
  if (provider === undefined) {
    const stray = model !== undefined ? '--model' : baseURL !== undefined ? '--base-url' : undefined;
    if (stray !== undefined)
      throw new UsageError(`${stray} needs an LLM: pass --provider anthropic or openai`, command);
    return { provider: 'extractive', chosenBy: 'default', model: undefined, baseURL: undefined };
  }
  return chooseSummarizer({ provider, model, baseURL }, process.env, command);
}
