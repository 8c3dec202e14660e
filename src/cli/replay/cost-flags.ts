/**
 * The cost-model flags of `replay` and `eval`: `--cost-family` (`anthropic`, `openai`, `none`),
 * chosen from the transcript's model when the file names it, else Anthropic's prices; and
 * `--cache-read-ratio`, `--cache-write-ratio` and `--price-per-mtok`, which win over the family's.
 */
import {
  selectCostModel,
  type CacheFamily,
  type CostModel,
  type CostModelOptions,
} from '../../core/cost/cost-model.js';
import { readStringFlag } from '../arguments.js';
import type { CommandArguments } from '../arguments.js';
import { UsageError } from '../errors.js';
import { readRuledNumberFlag } from './replay-flags.js';

/** The flags {@link readCostFlags} reads, for a command's flag table. */
export const COST_FLAGS = {
  'cost-family': { type: 'string' },
  'cache-read-ratio': { type: 'string' },
  'cache-write-ratio': { type: 'string' },
  'price-per-mtok': { type: 'string' },
} as const;

const FAMILIES: readonly CacheFamily[] = ['anthropic', 'openai', 'none'];

/**
 * The cost model of a run: the family `--cost-family` names, else the one of `model` (the
 * transcript's, when it names one), else Anthropic's; each ratio or price flag given wins.
 *
 * @throws {UsageError} naming the flag: `--cost-family must be "anthropic", "openai" or "none", got "google"`.
 */
export function readCostFlags(parsed: CommandArguments, command: string, model: string | undefined): CostModel {
  const family = readStringFlag(parsed, 'cost-family');
  if (family !== undefined && !FAMILIES.includes(family as CacheFamily)) {
    throw new UsageError(
      `--cost-family must be "anthropic", "openai" or "none", got ${JSON.stringify(family)}`,
      command,
    );
  }
  const override: CostModelOptions = {};
  if (family !== undefined) override.family = family as CacheFamily;
  const readRatio = readRuledNumberFlag(parsed, 'cache-read-ratio', { min: 0 }, command);
  if (readRatio !== undefined) override.readRatio = readRatio;
  const writeRatio = readRuledNumberFlag(parsed, 'cache-write-ratio', { min: 0 }, command);
  if (writeRatio !== undefined) override.writeRatio = writeRatio;
  const price = readRuledNumberFlag(parsed, 'price-per-mtok', { min: 0 }, command);
  if (price !== undefined) override.inputPricePerMTok = price;
  return selectCostModel({ model, override });
}
