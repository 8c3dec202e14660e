/**
 * The context manager's settings once resolved and checked (by the public layer, once, when
 * the manager is created), and the checks of the settings that are the manager's own: the
 * provider family and the hooks.
 */
import type { FormatName, MessageFormat } from '../format.js';
import { describeValue, InvalidOptionError } from '../errors.js';
import type { CostModel } from '../cost/cost-model.js';
import type { ResolvedBatchOffloadOptions } from '../options/offload-options.js';
import type { ResolvedPreview } from '../offload/offload-reference.js';
import { DEFAULT_CALIBRATION_MARGINS, inferProviderFamily, type ProviderFamily } from './counting/calibration.js';
import type { CompactBudgets, ContextManagerHooks } from './types.js';

/**
 * When tool results go to the store:
 * - `'as-they-age'`: the newest results (those answering the latest assistant turn) are sent
 *   whole, one too large for the window cut to its head and tail with the reference; older
 *   results go to the store in batches, when those still inline add up to more than a budget;
 * - `'on-arrival'`: every new result of at least `offload.directThreshold` characters is
 *   replaced by its reference before the model sees it, and older ones go by the ratio gate.
 */
export type OffloadTiming = 'as-they-age' | 'on-arrival';

/** The settings of the `'as-they-age'` timing. */
export interface ResolvedAgingOptions {
  /** A newest result of more characters than this is cut to its head and tail, with the reference. */
  maxInlineResultChars: number;
  /** Older results stay inline until those of at least `minAgedResultChars` add up to more than this many characters. */
  agedBudgetChars: number;
  /** The smallest older result offloaded when the budget is passed, or over the trigger. */
  minAgedResultChars: number;
  /** What a cut result keeps of its content. */
  cut: ResolvedPreview;
}

/** The manager's offload settings, resolved. */
interface ResolvedManagerOffloadOptions {
  /** When results go to the store. */
  timing: OffloadTiming;
  /** Direct offload: one result or input field of at least this many characters. */
  directThreshold: number;
  /** Tools whose results are never offloaded (the read tool included). */
  excludeTools: ReadonlySet<string>;
  /**
   * Tools that read files: one returning content already stored in the session read it back, and
   * it stays inline. Given as `compaction.restore.readToolNames` (the same tools are the ones whose
   * files a compaction restores), kept here since only the offload steps read it in the manager.
   */
  readToolNames: ReadonlySet<string>;
  /** The preview that follows each reference, or `null`. */
  preview: ResolvedPreview | null;
  /** The settings of the `'as-they-age'` timing (unused `'on-arrival'`). */
  aging: ResolvedAgingOptions;
  /** Batch offload (its `reference` is the store's own, under the session). */
  batch: ResolvedBatchOffloadOptions;
}

/** The manager's compaction settings, resolved. */
interface ResolvedManagerCompactionOptions {
  /** Share of the window at which compaction triggers. */
  triggerRatio: number;
  /** Summary and restore budgets as configured: the most a compaction gets. */
  budgets: CompactBudgets;
  /** The message compaction appends, counted in what it keeps. */
  resumeMessage: string | undefined;
}

/**
 * Every setting of the manager, resolved: the core trusts these values. Grouped and named as
 * the public options are.
 */
export interface ResolvedContextManagerOptions<M> {
  /** Converts the caller's messages to the canonical shape and back. */
  format: MessageFormat<M>;
  /** The session folder every key goes under. */
  sessionId: string;
  /** The window, in tokens. */
  contextTokenLimit: number;
  /** What goes to the store, and when. */
  offload: ResolvedManagerOffloadOptions;
  /** When the history is compacted, and what a compaction may spend. */
  compaction: ResolvedManagerCompactionOptions;
  /** Provider tokens per local token before any usage arrives. */
  initialCalibrationRatio: number;
  /** How the provider prices cached and uncached input: what a rewritten prompt prefix costs. */
  costModel: CostModel;
  /** Hooks. */
  hooks: ContextManagerHooks;
}

const FAMILIES: readonly ProviderFamily[] = ['anthropic', 'openai', 'other'];

/** Characters per token assumed where a share of the window becomes a number of characters (o200k averages about 4 on prose and code). */
export const CHARS_PER_WINDOW_TOKEN = 4;
/** The default `maxInlineResultChars`: this share of the window, in characters. */
export const DEFAULT_MAX_INLINE_RESULT_SHARE = 0.5;
/** The default `agedBudgetChars`: this share of the window, in characters (at most {@link DEFAULT_MAX_AGED_BUDGET_CHARS}). */
export const DEFAULT_AGED_BUDGET_SHARE = 0.2;
/**
 * The most the default `agedBudgetChars` is, whatever the window. The budget only keeps a batch
 * from going for a few characters: whether one pays is the cost rule's to say, and that does not
 * grow with the window. A budget that did (a tenth of the window: 80,000 characters at 200,000
 * tokens) held the first batch back until late in a session, where it rewrote a long prefix for
 * the few requests left. On the bench's corpus, against a tenth of the window: at 100,000 and
 * 200,000 tokens 56.9% of the cost of sending everything instead of 61.9% and 70.0%, and no
 * transcript costlier than that instead of two and one; at 30,000 tokens (20,000 characters
 * instead of 12,000) 51.7% instead of 50.0%, with 242 prefix changes instead of 337 and no
 * transcript costlier than sending everything instead of one.
 */
export const DEFAULT_MAX_AGED_BUDGET_CHARS = 20_000;
/**
 * The smallest older result an aging batch takes, by default (`minAgedResultChars`). A
 * batch rewrites the prompt from its first offloaded result to the end: the more of that span it
 * frees, the sooner the rewrite pays. Results of a few hundred characters are most of an agent's
 * shell output; left inline, they are read again by every later request and keep the history
 * growing toward a compaction (on the bench's corpus, a bound of 1,000 cost 8% more with caching
 * at 30K tokens than this one).
 */
export const DEFAULT_MIN_AGED_CHARS = 300;
/** What a cut result keeps of its content by default: its first and last characters (at most; see {@link DEFAULT_CUT_SHARE}). */
export const DEFAULT_CUT: ResolvedPreview = Object.freeze({ headChars: 1000, tailChars: 2000 });
/** A default cut keeps at most this share of the window, in characters (a third from the head, the rest from the tail). */
export const DEFAULT_CUT_SHARE = 0.03;

/** The settings of the `'as-they-age'` timing as given (each optional). */
export interface AgingOptionFields {
  offloadTiming?: unknown;
  maxInlineResultChars?: unknown;
  agedBudgetChars?: unknown;
  minAgedResultChars?: unknown;
}

function resolveCharCount(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError(
      `${name} must be an integer >= 1 (a number of characters), got ${describeValue(value)}`,
    );
  }
  return value;
}

/** {@link DEFAULT_CUT}, or less in a small window: at most {@link DEFAULT_CUT_SHARE} of it. */
function scaleDefaultCut(windowChars: number): ResolvedPreview {
  const total = DEFAULT_CUT.headChars + DEFAULT_CUT.tailChars;
  const fitting = Math.floor(windowChars * DEFAULT_CUT_SHARE);
  if (fitting >= total) return DEFAULT_CUT;
  const headChars = Math.floor(fitting / 3);
  return { headChars, tailChars: fitting - headChars };
}

/**
 * The offload timing and the settings of `'as-they-age'`: the bound of a new result and the
 * budget of the older ones default to shares of the window (in characters, at
 * {@link CHARS_PER_WINDOW_TOKEN} per token; the budget at most {@link DEFAULT_MAX_AGED_BUDGET_CHARS}); the smallest older result offloaded is
 * `minAgedResultChars`, else {@link DEFAULT_MIN_AGED_CHARS};
 * a cut keeps `settings.cut` (the sizes `preview` gives, when it gives them), else
 * {@link DEFAULT_CUT}, scaled down in a window of fewer than 25,000 tokens.
 *
 * @throws {InvalidOptionError} naming the option: a timing that is not one of the two, a count that is not an integer >= 1.
 */
export function resolveAgingOptions(
  fields: AgingOptionFields,
  settings: { contextTokenLimit: number; cut?: ResolvedPreview | undefined },
): { timing: OffloadTiming; aging: ResolvedAgingOptions } {
  const timing = fields.offloadTiming ?? 'as-they-age';
  if (timing !== 'as-they-age' && timing !== 'on-arrival') {
    throw new InvalidOptionError(`offloadTiming must be "as-they-age" or "on-arrival", got ${describeValue(timing)}`);
  }
  const windowChars = settings.contextTokenLimit * CHARS_PER_WINDOW_TOKEN;
  return {
    timing,
    aging: {
      maxInlineResultChars: resolveCharCount(
        'maxInlineResultChars',
        fields.maxInlineResultChars,
        Math.max(1, Math.floor(windowChars * DEFAULT_MAX_INLINE_RESULT_SHARE)),
      ),
      agedBudgetChars: resolveCharCount(
        'agedBudgetChars',
        fields.agedBudgetChars,
        Math.max(1, Math.min(DEFAULT_MAX_AGED_BUDGET_CHARS, Math.floor(windowChars * DEFAULT_AGED_BUDGET_SHARE))),
      ),
      minAgedResultChars: resolveCharCount('minAgedResultChars', fields.minAgedResultChars, DEFAULT_MIN_AGED_CHARS),
      cut: settings.cut ?? scaleDefaultCut(windowChars),
    },
  };
}

/** The family a format's histories usually go to, when neither `provider` nor `model` says. */
function familyOfFormat(formatName: FormatName | (string & {})): ProviderFamily {
  if (formatName === 'anthropic') return 'anthropic';
  if (formatName === 'openai-chat' || formatName === 'openai-responses' || formatName === 'openai-agents')
    return 'openai';
  return 'other';
}

/**
 * The provider family: `provider` when given, else inferred from `model`, else from the
 * format (`anthropic` → `'anthropic'`, the OpenAI formats → `'openai'`, others → `'other'`).
 *
 * @throws {InvalidOptionError} for a `provider` that is not one of the families, or a `model` that is not a non-empty string.
 */
export function resolveProviderFamily(
  provider: unknown,
  model: unknown,
  formatName: FormatName | (string & {}),
): ProviderFamily {
  if (provider !== undefined) {
    if (!FAMILIES.includes(provider as ProviderFamily)) {
      throw new InvalidOptionError(`provider must be "anthropic", "openai" or "other", got ${describeValue(provider)}`);
    }
    return provider as ProviderFamily;
  }
  if (model !== undefined) {
    if (typeof model !== 'string' || model.trim() === '') {
      throw new InvalidOptionError(
        `model must be a non-empty string (the model the history is sent to), got ${describeValue(model)}`,
      );
    }
    return inferProviderFamily(model);
  }
  return familyOfFormat(formatName);
}

/** The margin of a family: {@link DEFAULT_CALIBRATION_MARGINS}. */
export function resolveInitialCalibrationRatio(family: ProviderFamily): number {
  return DEFAULT_CALIBRATION_MARGINS[family];
}

/**
 * The hooks, checked: each absent or a function.
 *
 * @throws {InvalidOptionError} naming the hook.
 */
export function resolveHooks(options: { onOffload?: unknown; onCompact?: unknown }): ContextManagerHooks {
  for (const name of ['onOffload', 'onCompact'] as const) {
    const hook = options[name];
    if (hook !== undefined && typeof hook !== 'function') {
      throw new InvalidOptionError(`${name} must be a function, got ${describeValue(hook)}`);
    }
  }
  return {
    onOffload: options.onOffload as ContextManagerHooks['onOffload'],
    onCompact: options.onCompact as ContextManagerHooks['onCompact'],
  };
}
