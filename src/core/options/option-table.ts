/**
 * Every option that has a default or an environment variable, as one row each: its name, its
 * variable, its default (from `defaults.ts`), the rule it must respect and the functions that
 * take it. Resolution goes through {@link resolveTableOption}, and the docs' option tables are
 * generated from these rows (with the texts of `scripts/option-docs.ts`, by `npm run docs:options`); a
 * test fails when a page drifts, so code and docs cannot disagree.
 */
import {
  DEFAULT_COMPACT_MAX_RETRIES,
  DEFAULT_COMPACT_OUTPUT_DIR,
  DEFAULT_COMPACT_THRESHOLD_RATIO,
  DEFAULT_CONTEXT_TOKEN_LIMIT,
  DEFAULT_DIRECT_OFFLOAD_THRESHOLD,
  DEFAULT_MAX_RESTORE_FILES,
  DEFAULT_MAX_RESTORE_TOKENS_PER_FILE,
  DEFAULT_MAX_RESTORE_TOKENS_TOTAL,
  DEFAULT_OFFLOAD_CHAR_THRESHOLD,
  DEFAULT_OFFLOAD_KEEP_RECENT,
  DEFAULT_OFFLOAD_RATIO_THRESHOLD,
  DEFAULT_PATH_FIELD,
  DEFAULT_PREVIEW_HEAD_CHARS,
  DEFAULT_PREVIEW_TAIL_CHARS,
  DEFAULT_READ_TOOL_NAMES,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_SESSION_ID,
  DEFAULT_SUMMARY_INPUT_MAX_TOKENS,
  DEFAULT_SUMMARY_MAX_WORDS,
  DEFAULT_SUMMARY_MODEL,
  DEFAULT_TOKEN_SAFETY_FACTOR,
} from './defaults.js';
import {
  requireString,
  resolveNumberSetting,
  resolveOptionalString,
  resolveStringList,
  type Environment,
  type NumberRule,
} from './env.js';
import { assertDirectorySetting, assertSafePathSegment } from '../store/safe-path.js';

/** The public functions an option belongs to. */
export type OptionFunction =
  | 'offloadToolResults'
  | 'offloadToolResult'
  | 'createToolResultOffloader'
  | 'compactMessages'
  | 'shouldCompact'
  | 'restoreRecentFiles';

/**
 * What a value must be:
 * - a {@link NumberRule}: a number within its bounds (the variable in decimal notation);
 * - `'string'`: a non-empty string (no variable);
 * - `'optional-string'`: a non-empty string, else the non-blank variable, else `undefined`
 *   (the default then applies later, after other sources such as a client's own default);
 * - `'string-list'`: an array of strings (no variable);
 * - `'directory'`: a non-blank directory setting without control characters;
 * - `'path-segment'`: a safe folder name (else `UNSAFE_PATH`).
 */
export type OptionRule = NumberRule | 'string' | 'optional-string' | 'string-list' | 'directory' | 'path-segment';

/** One option: name, variable, default, rule, where it applies, and what it does. */
export interface OptionRow<R extends OptionRule = OptionRule> {
  /** The option's name as the user writes it (`preview.headChars` for a nested one). */
  readonly option: string;
  /** Its environment variable, if it has one. */
  readonly env?: string;
  /** Its default (one of the `DEFAULT_*` constants). */
  readonly default: number | string | readonly string[];
  readonly rule: R;
  readonly appliesTo: readonly OptionFunction[];
  /** What it does, in one line (the docs' tables take their fuller texts from `scripts/option-docs.ts`). */
  readonly summary: string;
}

/** What {@link resolveTableOption} returns for a row of rule `R`. */
export type ResolvedOption<R extends OptionRule> = R extends string
  ? R extends 'string-list'
    ? readonly string[]
    : R extends 'optional-string'
      ? string | undefined
      : string
  : number;

const BATCH = ['offloadToolResults'] as const;
const ALL_OFFLOAD = ['offloadToolResults', 'offloadToolResult', 'createToolResultOffloader'] as const;
const TRIGGER = ['compactMessages', 'shouldCompact'] as const;
const COMPACT = ['compactMessages'] as const;
const RESTORE = ['compactMessages', 'restoreRecentFiles'] as const;
const COUNT = { min: 0, integer: true } as const;

/** The rows, by a key of their own (an option name can appear twice, e.g. `outputDir`). */
export const OPTIONS = {
  charThreshold: {
    option: 'charThreshold',
    env: 'OFFLOAD_CHAR_THRESHOLD',
    default: DEFAULT_OFFLOAD_CHAR_THRESHOLD,
    rule: { min: 1 },
    appliesTo: BATCH,
    summary: 'A tool_result of at least this many chars is offloaded.',
  },
  ratioThreshold: {
    option: 'ratioThreshold',
    env: 'OFFLOAD_RATIO_THRESHOLD',
    default: DEFAULT_OFFLOAD_RATIO_THRESHOLD,
    rule: { min: 0, max: 1 },
    appliesTo: BATCH,
    summary: 'Skip unless offloadable chars / total chars reaches this share.',
  },
  keepRecent: {
    option: 'keepRecent',
    default: DEFAULT_OFFLOAD_KEEP_RECENT,
    rule: COUNT,
    appliesTo: BATCH,
    summary: 'The newest N tool_result blocks stay inline.',
  },
  excludeTools: {
    option: 'excludeTools',
    default: [],
    rule: 'string-list',
    appliesTo: ['offloadToolResults', 'createToolResultOffloader'],
    summary: 'Tools whose results are never offloaded.',
  },
  threshold: {
    option: 'threshold',
    default: DEFAULT_DIRECT_OFFLOAD_THRESHOLD,
    rule: { min: 1 },
    appliesTo: ['createToolResultOffloader'],
    summary: 'The middleware offloads results of at least this many chars.',
  },
  previewHeadChars: {
    option: 'preview.headChars',
    default: DEFAULT_PREVIEW_HEAD_CHARS,
    rule: COUNT,
    appliesTo: ALL_OFFLOAD,
    summary: 'Opt-in preview: chars shown from the start of the offloaded content.',
  },
  previewTailChars: {
    option: 'preview.tailChars',
    default: DEFAULT_PREVIEW_TAIL_CHARS,
    rule: COUNT,
    appliesTo: ALL_OFFLOAD,
    summary: 'Opt-in preview: chars shown from the end of the offloaded content.',
  },
  contextTokenLimit: {
    option: 'contextTokenLimit',
    env: 'CONTEXT_TOKEN_LIMIT',
    default: DEFAULT_CONTEXT_TOKEN_LIMIT,
    rule: { min: 1, integer: true },
    appliesTo: TRIGGER,
    summary: 'The context window, in tokens.',
  },
  compactThresholdRatio: {
    option: 'compactThresholdRatio',
    env: 'COMPACT_THRESHOLD_RATIO',
    default: DEFAULT_COMPACT_THRESHOLD_RATIO,
    rule: { min: 0, max: 1 },
    appliesTo: TRIGGER,
    summary: 'Compaction triggers at this share of the window.',
  },
  tokenSafetyFactor: {
    option: 'tokenSafetyFactor',
    default: DEFAULT_TOKEN_SAFETY_FACTOR,
    rule: { above: 0 },
    appliesTo: TRIGGER,
    summary: 'Scale applied to local token estimates (1 = as counted).',
  },
  summaryModel: {
    option: 'summaryModel',
    env: 'SUMMARY_MODEL',
    default: DEFAULT_SUMMARY_MODEL,
    rule: 'optional-string',
    appliesTo: COMPACT,
    summary:
      "Model that writes the summary; unset, the client's own defaultModel applies, and this default only after it (an OpenAI client has none: a model must be given).",
  },
  summaryMaxWords: {
    option: 'summaryMaxWords',
    env: 'SUMMARY_MAX_WORDS',
    default: DEFAULT_SUMMARY_MAX_WORDS,
    rule: { min: 1, integer: true },
    appliesTo: COMPACT,
    summary: 'Word budget of the summary.',
  },
  summaryInputMaxTokens: {
    option: 'summaryInputMaxTokens',
    default: DEFAULT_SUMMARY_INPUT_MAX_TOKENS,
    rule: { min: 1, integer: true },
    appliesTo: COMPACT,
    summary: 'Largest prompt sent to an LLM summarizer, in tokens.',
  },
  maxRetries: {
    option: 'maxRetries',
    env: 'COMPACT_MAX_RETRIES',
    default: DEFAULT_COMPACT_MAX_RETRIES,
    rule: COUNT,
    appliesTo: COMPACT,
    summary: 'Retries after the first failed summary attempt.',
  },
  retryBaseDelayMs: {
    option: 'retryBaseDelayMs',
    default: DEFAULT_RETRY_BASE_DELAY_MS,
    rule: { min: 0 },
    appliesTo: COMPACT,
    summary: 'First retry delay; doubles on each retry.',
  },
  compactOutputDir: {
    option: 'outputDir',
    env: 'COMPACT_OUTPUT_DIR',
    default: DEFAULT_COMPACT_OUTPUT_DIR,
    rule: 'directory',
    appliesTo: COMPACT,
    summary: 'Where Rest is archived before summarizing, absolute or relative to workDir.',
  },
  sessionId: {
    option: 'sessionId',
    default: DEFAULT_SESSION_ID,
    rule: 'path-segment',
    appliesTo: COMPACT,
    summary: 'Session whose archive folder is used.',
  },
  maxRestoreFiles: {
    option: 'maxRestoreFiles',
    env: 'MAX_RESTORE_FILES',
    default: DEFAULT_MAX_RESTORE_FILES,
    rule: COUNT,
    appliesTo: RESTORE,
    summary: 'Most recently read files restored after compaction.',
  },
  maxRestoreTokensPerFile: {
    option: 'maxRestoreTokensPerFile',
    env: 'MAX_RESTORE_TOKENS_PER_FILE',
    default: DEFAULT_MAX_RESTORE_TOKENS_PER_FILE,
    rule: COUNT,
    appliesTo: RESTORE,
    summary: 'A file above this many tokens is not restored.',
  },
  maxRestoreTokensTotal: {
    option: 'maxRestoreTokensTotal',
    env: 'MAX_RESTORE_TOKENS_TOTAL',
    default: DEFAULT_MAX_RESTORE_TOKENS_TOTAL,
    rule: COUNT,
    appliesTo: RESTORE,
    summary: 'Restoration stops before this many tokens in all.',
  },
  readToolNames: {
    option: 'readToolNames',
    default: DEFAULT_READ_TOOL_NAMES,
    rule: 'string-list',
    appliesTo: RESTORE,
    summary: "Tool names whose tool_use reads a file (['Read'] for Claude Code).",
  },
  pathField: {
    option: 'pathField',
    default: DEFAULT_PATH_FIELD,
    rule: 'string',
    appliesTo: RESTORE,
    summary: "Field of the read tool's input that holds the path ('file_path' for Claude Code).",
  },
} as const satisfies Record<string, OptionRow>;

/** Every row, in the order above. */
export const OPTION_TABLE: readonly OptionRow[] = Object.values(OPTIONS);

/**
 * Resolves one option: the value when given, else the row's environment variable (when it has
 * one and it is set and non-blank), else the row's default; checked against the row's rule.
 *
 * @throws {InvalidOptionError} naming the option, or the variable when the value came from it:
 *   `OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "0x10"`.
 * @throws {UnsafePathError} for a `'path-segment'` row whose value is not a safe folder name.
 */
export function resolveTableOption<R extends OptionRule>(
  row: OptionRow<R>,
  value: unknown,
  env: Environment = {},
): ResolvedOption<R> {
  const rule: OptionRule = row.rule;
  return resolveByRule(row, rule, value, env) as ResolvedOption<R>;
}

function resolveByRule(
  row: OptionRow,
  rule: OptionRule,
  value: unknown,
  env: Environment,
): number | string | readonly string[] | undefined {
  switch (rule) {
    case 'string':
      return value === undefined ? (row.default as string) : requireString(row.option, value);
    case 'optional-string':
      return resolveOptionalString(row.option, value, env, row.env);
    case 'string-list':
      return resolveStringList(row.option, value, row.default as readonly string[]);
    case 'directory': {
      if (value !== undefined) return assertDirectorySetting(row.option, value);
      const raw = row.env === undefined ? undefined : env[row.env];
      return raw === undefined || raw.trim() === ''
        ? (row.default as string)
        : assertDirectorySetting(row.env as string, raw.trim());
    }
    case 'path-segment':
      return assertSafePathSegment(row.option, value ?? row.default);
    default:
      return resolveNumberSetting(
        { option: row.option, env: row.env, default: row.default as number, rule },
        value,
        env,
      );
  }
}

/** A group of {@link OPTION_GROUPS}: each key the flat option it stands for, or a nested group. */
export type OptionGroupMapping = { readonly [key: string]: string | OptionGroupMapping };

/**
 * The one vocabulary of the tuning knobs: the groups `createContextManager` takes (and the
 * proxy, the integrations and the CLI's config file, which pass them on), each leaf the flat
 * option of the functions above that it stands for (`compaction.summary.maxWords` is
 * `compactMessages`' `summaryMaxWords`). Options are resolved once, at the entry, through
 * this mapping: the flat names stay the contract of `offloadToolResults`, `compactMessages`
 * and the other functions of the table, and their resolvers check the grouped values.
 */
export const OPTION_GROUPS = {
  offload: {
    timing: 'offloadTiming',
    directThreshold: 'threshold',
    minAgedResultChars: 'minAgedResultChars',
    charThreshold: 'charThreshold',
    ratioThreshold: 'ratioThreshold',
    keepRecent: 'keepRecent',
    excludeTools: 'excludeTools',
    preview: 'preview',
    maxInlineResultChars: 'maxInlineResultChars',
    agedBudgetChars: 'agedBudgetChars',
  },
  compaction: {
    triggerRatio: 'compactThresholdRatio',
    summary: {
      model: 'summaryModel',
      maxWords: 'summaryMaxWords',
      inputMaxTokens: 'summaryInputMaxTokens',
      maxRetries: 'maxRetries',
      retryBaseDelayMs: 'retryBaseDelayMs',
      mode: 'summaryMode',
      conversationRequest: 'conversationRequest',
    },
    restore: {
      maxFiles: 'maxRestoreFiles',
      maxTokensPerFile: 'maxRestoreTokensPerFile',
      maxTokensTotal: 'maxRestoreTokensTotal',
      readToolNames: 'readToolNames',
      pathField: 'pathField',
      fileReader: 'fileReader',
    },
    archivePolicy: 'archive',
    resumeMessage: 'resumeMessage',
  },
} as const satisfies OptionGroupMapping;

/**
 * Grouped spellings that are gone, by path, and what to write instead: given, each is an error
 * that says so (a removed option silently ignored would leave its default in force).
 */
export const REMOVED_GROUPED_OPTIONS: Readonly<Record<string, string>> = {
  'offload.threshold':
    'it meant one thing on arrival and another as results age: pass offload.directThreshold (the size at which one new result or tool input field is offloaded on its own) or offload.minAgedResultChars (the smallest older result a batch takes as results age)',
  'compaction.trigger': 'compaction.trigger.ratio is now compaction.triggerRatio',
  'compaction.archive': 'compaction.archive.policy is now compaction.archivePolicy',
};
