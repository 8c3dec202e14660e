/**
 * The context manager's settings once resolved and checked (by the public layer, once, when
 * the manager is created), and the checks of the settings that are the manager's own: the
 * provider family and the hooks.
 */
import type { FormatName, MessageFormat } from '../format.js';
import { describeValue, InvalidOptionError } from '../errors.js';
import type { ResolvedBatchOffloadOptions } from '../offload-options.js';
import type { ResolvedPreview } from '../offload-reference.js';
import { DEFAULT_CALIBRATION_MARGINS, inferProviderFamily, type ProviderFamily } from './calibration.js';
import type { CompactBudgets, ContextManagerHooks } from './types.js';

/** Every setting of the manager, resolved: the core trusts these values. */
export interface ResolvedContextManagerOptions<M> {
  /** Converts the caller's messages to the canonical shape and back. */
  format: MessageFormat<M>;
  /** The session folder every key goes under. */
  sessionId: string;
  /** Direct offload: new results of at least this many characters. */
  threshold: number;
  /** Tools whose results are never offloaded (the read tool included). */
  excludeTools: ReadonlySet<string>;
  /** Tools that read files: one returning content already stored in the session read it back, and it stays inline. */
  readToolNames: ReadonlySet<string>;
  /** The preview that follows each reference, or `null`. */
  preview: ResolvedPreview | null;
  /** Batch offload (its `reference` is the store's own, under the session). */
  batch: ResolvedBatchOffloadOptions;
  /** The window, in tokens. */
  contextTokenLimit: number;
  /** Share of the window at which compaction triggers. */
  compactThresholdRatio: number;
  /** Summary and restore budgets as configured: the most a compaction gets. */
  budgets: CompactBudgets;
  /** The message compaction appends, counted in what it keeps. */
  resumeMessage: string | undefined;
  /** Provider tokens per local token before any usage arrives. */
  initialCalibrationRatio: number;
  /** Hooks. */
  hooks: ContextManagerHooks;
}

const FAMILIES: readonly ProviderFamily[] = ['anthropic', 'openai', 'other'];

/** The family a format's histories usually go to, when neither `provider` nor `model` says. */
function familyOfFormat(formatName: FormatName | (string & {})): ProviderFamily {
  if (formatName === 'anthropic') return 'anthropic';
  if (formatName === 'openai-chat' || formatName === 'openai-responses' || formatName === 'openai-agents') return 'openai';
  return 'other';
}

/**
 * The provider family: `provider` when given, else inferred from `model`, else from the
 * format (`anthropic` → `'anthropic'`, the OpenAI formats → `'openai'`, others → `'other'`).
 *
 * @throws {InvalidOptionError} for a `provider` that is not one of the families, or a `model` that is not a non-empty string.
 */
export function resolveProviderFamily(provider: unknown, model: unknown, formatName: FormatName | (string & {})): ProviderFamily {
  if (provider !== undefined) {
    if (!FAMILIES.includes(provider as ProviderFamily)) {
      throw new InvalidOptionError(`provider must be "anthropic", "openai" or "other", got ${describeValue(provider)}`);
    }
    return provider as ProviderFamily;
  }
  if (model !== undefined) {
    if (typeof model !== 'string' || model.trim() === '') {
      throw new InvalidOptionError(`model must be a non-empty string (the model the history is sent to), got ${describeValue(model)}`);
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
