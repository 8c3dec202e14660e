/**
 * Who writes the summary for `compact`: the `--provider` flag, else what `compactMessages`
 * itself would pick from the environment (Anthropic when `ANTHROPIC_API_KEY` is set, else the
 * offline extractive summarizer). The CLI builds that summarizer itself, rather than letting
 * `compactMessages` build it, because `--provider openai`, `--provider extractive` and
 * `--base-url` go beyond what the library picks, and because it wraps the client to count
 * requests and show a spinner. So the choice is made before compaction, and the result's
 * `summarizer` can only say `'custom'` or `'llm-client'` for it: how the summarizer is
 * described (provider, model, base URL, why) stays here.
 */
import { chooseSummarizerSource } from '../api/compact.js';
import { DEFAULT_SUMMARY_MODEL } from '../core/options/defaults.js';
import type { LlmClient, Summarizer } from '../index.js';
import { UsageError } from './errors.js';

/** The summarizers `--provider` names. */
type ProviderName = 'anthropic' | 'openai' | 'extractive';

const PROVIDER_NAMES: readonly ProviderName[] = ['anthropic', 'openai', 'extractive'];

/** The summarizer chosen, before anything is loaded. */
export interface SummarizerChoice {
  /** Which one. */
  provider: ProviderName;
  /** Why: the flag, or the environment's default. */
  chosenBy: 'flag' | 'ANTHROPIC_API_KEY' | 'default';
  /** The model (LLM providers only). */
  model: string | undefined;
  /** The base URL given with `--base-url`. */
  baseURL: string | undefined;
}

/** Flags that shape the choice. */
export interface SummarizerFlags {
  provider: string | undefined;
  model: string | undefined;
  baseURL: string | undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * Chooses the summarizer from the flags and the environment.
 *
 * @param command The command whose `--help` a usage error points at.
 * @throws {UsageError} for an unknown provider, `--model`/`--base-url` without an LLM
 * provider, or `openai` without a model (it has no default).
 */
export function chooseSummarizer(
  flags: SummarizerFlags,
  env: Readonly<Record<string, string | undefined>> = process.env,
  command = 'compact',
): SummarizerChoice {
  let provider: ProviderName;
  let chosenBy: SummarizerChoice['chosenBy'];
  if (flags.provider !== undefined) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(flags.provider)) {
      throw new UsageError(
        `--provider must be one of ${PROVIDER_NAMES.join(', ')}, got ${JSON.stringify(flags.provider)}`,
        command,
      );
    }
    provider = flags.provider as ProviderName;
    chosenBy = 'flag';
  } else if (chooseSummarizerSource({}, env).kind === 'anthropic') {
    provider = 'anthropic';
    chosenBy = 'ANTHROPIC_API_KEY';
  } else {
    provider = 'extractive';
    chosenBy = 'default';
  }
  if (provider === 'extractive') {
    const stray = flags.model !== undefined ? '--model' : flags.baseURL !== undefined ? '--base-url' : undefined;
    if (stray !== undefined) {
      throw new UsageError(
        `${stray} needs an LLM: pass --provider anthropic or openai (or set ANTHROPIC_API_KEY)`,
        command,
      );
    }
    return { provider, chosenBy, model: undefined, baseURL: undefined };
  }
  const model = nonEmpty(flags.model) ?? nonEmpty(env.SUMMARY_MODEL);
  if (provider === 'openai' && model === undefined) {
    throw new UsageError(
      '--provider openai needs --model (or SUMMARY_MODEL): OpenAI-compatible servers have no default model',
      command,
    );
  }
  return { provider, chosenBy, model, baseURL: flags.baseURL };
}

/**
 * The summarizer for people: `extractive (offline, deterministic)`, `anthropic
 * claude-haiku-4-5-20251001, ANTHROPIC_API_KEY is set`, `openai gpt-5-mini at http://...`.
 *
 * @param options `suggestLlm` tells, after an extractive summarizer chosen by default, how to
 * get an LLM summary instead.
 */
export function describeSummarizer(choice: SummarizerChoice, options: { suggestLlm?: boolean } = {}): string {
  if (choice.provider === 'extractive') {
    const hint =
      options.suggestLlm === true && choice.chosenBy !== 'flag'
        ? '; set ANTHROPIC_API_KEY or pass --provider for an LLM summary'
        : '';
    return `extractive (offline, deterministic${hint})`;
  }
  const model = choice.model ?? DEFAULT_SUMMARY_MODEL;
  const why = choice.chosenBy === 'ANTHROPIC_API_KEY' ? ', ANTHROPIC_API_KEY is set' : '';
  return `${choice.provider} ${model}${choice.baseURL === undefined ? '' : ` at ${choice.baseURL}`}${why}`;
}

/** Calls made to the summarizer, for the report. */
export interface SummarizerUse {
  /** Summaries (extractive) or LLM requests made. */
  calls: number;
}

/** Hooks around each LLM request (the spinner). */
export interface LlmRequestHooks {
  /** Called before each request, with its 1-based number. */
  onRequestStart(requestNumber: number): Promise<void>;
  /** Called after each request, whatever its outcome. */
  onRequestEnd(): void;
}

/** What `compactMessages` takes to use the chosen summarizer. */
export type SummarizerOptions = { summarizer: Summarizer } | { llmClient: LlmClient; summaryModel?: string };

/**
 * Builds the summarizer (loading an SDK only for an LLM provider), wrapped to count its uses.
 *
 * @throws {ContextError} `MISSING_DEPENDENCY` when the provider's SDK is not installed.
 */
export async function createChosenSummarizer(
  choice: SummarizerChoice,
  use: SummarizerUse,
  hooks: LlmRequestHooks,
): Promise<SummarizerOptions> {
  if (choice.provider === 'extractive') {
    const { createExtractiveSummarizer } = await import('../summarize.js');
    const extractive = createExtractiveSummarizer();
    return {
      summarizer: {
        summarize(messages, options) {
          use.calls += 1;
          return extractive.summarize(messages, options);
        },
      },
    };
  }
  const settings = choice.baseURL === undefined ? {} : { baseURL: choice.baseURL };
  const client: LlmClient =
    choice.provider === 'anthropic'
      ? await (await import('../anthropic.js')).createAnthropicLlmClient(settings)
      : await (await import('../openai.js')).createOpenAILlmClient(settings);
  const llmClient: LlmClient = {
    // the wrapped client's default model (null for OpenAI) still decides when no model is given
    ...(client.defaultModel === undefined ? {} : { defaultModel: client.defaultModel }),
    async summarize(prompt, model, options) {
      use.calls += 1;
      await hooks.onRequestStart(use.calls);
      try {
        return await client.summarize(prompt, model, options);
      } finally {
        hooks.onRequestEnd();
      }
    },
  };
  return choice.model === undefined ? { llmClient } : { llmClient, summaryModel: choice.model };
}
