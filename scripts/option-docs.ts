/**
 * What the option tables of the docs (docs/offload.md, docs/compaction.md) say, section by
 * section and in their order. `npm run docs:options` (scripts/generate-option-tables.ts)
 * renders them between the pages' `<!-- option-table:SECTION -->` markers, and a test fails
 * when a page no longer matches: edit the tables here, never in the pages.
 *
 * A row drawn from the option table gets its default and env cells from that row, and its
 * type cell from the row's rule unless `type` says it better; only what the option does is
 * written here. Texts are kept per section rather than per option because one option can read
 * differently for two functions (`excludeTools` in batch and direct offload).
 *
 * Options outside the option table (ports such as `fileWriter` or `llmClient`, required values
 * such as the offloaders' `outputDir`, flags and modes such as `force`, `reference`, `preview`)
 * are hand-written rows here, not table rows: the table holds only what `resolveTableOption`
 * resolves (a `DEFAULT_*` default, maybe a variable, a rule), and these are checked where they
 * are used, with defaults that are not values (`process.cwd()`, a `NodeFileWriter`).
 */
import { OPTIONS, type OptionRow } from '../src/core/options/option-table.js';

/** The docs sections holding an option table, by the name their markers use. */
export type OptionDocSection = 'batch-offload' | 'direct-offload' | 'token-counting' | 'compaction';

/** A docs row drawn from the option table: its default and env cells come from `row`. */
export interface TableOptionDoc {
  readonly row: OptionRow;
  /** The type cell, when the rule alone does not say it; else it is derived from the rule. */
  readonly type?: string;
  /** What the option does, written after the type: `retries after the first attempt`. */
  readonly detail?: string;
  /** The default cell, when the default value alone does not say it. */
  readonly defaultText?: string;
  /** The one function of the section the row applies to, when the section documents several. */
  readonly only?: string;
}

/** A hand-written docs row, for an option that has no row in the option table. */
export interface ExtraOptionDoc {
  readonly option: string;
  readonly type: string;
  readonly defaultText: string;
  /** Environment variables that play a part (none when absent). */
  readonly env?: readonly string[];
}

/** One row of a docs option table. */
export type OptionDoc = TableOptionDoc | ExtraOptionDoc;

const PREVIEW_DEFAULT = `\`false\`; \`true\` = ${OPTIONS.previewHeadChars.default} / ${OPTIONS.previewTailChars.default} chars`;

/** The rows of each docs option table, in the order the page shows them. */
export const OPTION_DOCS: Readonly<Record<OptionDocSection, readonly OptionDoc[]>> = {
  'batch-offload': [
    {
      option: 'outputDir',
      type: '`string` (`offloadToolResults` only; the writer variant takes it as an argument)',
      defaultText: 'required',
    },
    { row: OPTIONS.charThreshold },
    { row: OPTIONS.ratioThreshold, detail: '`0` offloads whenever a block qualifies' },
    {
      row: OPTIONS.excludeTools,
      detail:
        'tools whose results stay inline; the name comes from the earlier `tool_use` with the same id (a result without one is not excluded)',
    },
    { row: OPTIONS.keepRecent, detail: 'the newest N `tool_result` blocks (any size) stay inline' },
    {
      option: 'preview',
      type: "`boolean | { headChars?, tailChars? }` (integers >= 0): the reference is followed by the content's head and tail",
      defaultText: PREVIEW_DEFAULT,
    },
    { option: 'reference', type: "`'relative' | 'absolute'`", defaultText: "`'relative'`" },
  ],
  'direct-offload': [
    {
      option: 'sessionId',
      type: '`string`: 1–200 chars of `[A-Za-z0-9._-]`, not `.` or `..`',
      defaultText: 'required',
    },
    { option: 'outputDir', type: '`string`', defaultText: 'required' },
    { row: OPTIONS.threshold, detail: 'results of at least this many chars are offloaded (middleware only)' },
    {
      row: OPTIONS.excludeTools,
      detail:
        "names come from `assistantMessage`'s `tool_use` blocks; without it nothing is excluded (middleware only)",
    },
    { option: 'preview', type: 'as batch offload', defaultText: '`false`' },
    {
      option: 'writer',
      type: '`FileWriter` (middleware only)',
      defaultText: 'none: `outputDir` is a file store (`createFileStore`)',
    },
  ],
  'token-counting': [
    {
      option: 'lastUsage',
      type: "`{ inputTokens, messageCount }` or `{ ...anthropicResponse.usage, messageCount }`: the provider's prompt size for the last request, which sent the first `messageCount` messages (an integer in [0, `messages.length`])",
      defaultText: 'none: all estimated locally',
    },
    {
      row: OPTIONS.tokenSafetyFactor,
      detail:
        "scales local estimates (rounded up), never the provider's figure; `shouldCompact` without it scales by the manager's starting margin for the family (1.5, or 1 for `provider: 'openai'`)",
    },
    { option: 'cache', type: '`boolean`; `false` recounts (and re-caches) every message', defaultText: '`true`' },
    { option: 'tokenCounter', type: '`TokenCounter`', defaultText: 'o200k_base' },
    { row: OPTIONS.contextTokenLimit, only: 'shouldCompact' },
    { row: OPTIONS.compactThresholdRatio, only: 'shouldCompact' },
  ],
  compaction: [
    { row: OPTIONS.contextTokenLimit },
    { row: OPTIONS.compactThresholdRatio },
    { option: 'force', type: '`boolean`: compact whatever the count', defaultText: '`false`' },
    { option: 'lastUsage', type: 'as `countTokens`', defaultText: 'none' },
    { row: OPTIONS.tokenSafetyFactor },
    {
      row: OPTIONS.summaryModel,
      detail: 'for `llmClient` or the Anthropic client',
      // Unset, the client's own default model comes first: the row's default is only the last resort.
      defaultText: `the client's \`defaultModel\`, else \`'${OPTIONS.summaryModel.default}'\`; an OpenAI client has none: a model must be given (see [LLM clients](#llm-clients))`,
    },
    { row: OPTIONS.summaryMaxWords, detail: 'a CJK character counts as a word' },
    {
      row: OPTIONS.summaryInputMaxTokens,
      // The floor depends on summaryMaxWords and the counter, which no static rule can say.
      type: 'integer, at least `computeMinSummaryInputTokens(summaryMaxWords, tokenCounter)` (1,430 at 1,200 words with the default counter)',
      detail: 'largest prompt sent to an LLM summarizer',
    },
    { row: OPTIONS.maxRetries, detail: 'retries after the first attempt' },
    { row: OPTIONS.retryBaseDelayMs },
    { row: OPTIONS.compactOutputDir, detail: 'archive root, absolute or relative to `workDir`' },
    {
      option: 'archive',
      type: "`'required' | 'best-effort'`: whether compaction needs its archive (a failed write skips it) or goes on without",
      defaultText: "`'required'`",
    },
    { row: OPTIONS.sessionId },
    {
      option: 'referenceReader',
      type: "`'read-tool' | 'own-tools'`: how the agent opens a reference the summary names, which the ledger's note says (the package's read tool, or its own tools for a file path)",
      defaultText: "`'read-tool'`",
    },
    {
      option: 'offloadDir',
      type: '`string`: the folder `offloadToolResults` wrote to (its `outputDir`), absolute or relative to `workDir`; the last error is read back from the results offloaded there',
      defaultText: 'none: the folder an absolute reference names, when inside `workDir`',
    },
    { row: OPTIONS.maxRestoreFiles, detail: 'candidates among the most recently read files; 0 restores nothing' },
    { row: OPTIONS.maxRestoreTokensPerFile, detail: 'a larger file is skipped' },
    { row: OPTIONS.maxRestoreTokensTotal, detail: 'restoring stops before the file that would exceed it' },
    {
      option: 'workDir',
      type: '`string`: read paths resolve against it; restoration never leaves it; relative → from the cwd',
      defaultText: '`process.cwd()`',
    },
    { row: OPTIONS.readToolNames, detail: "tools whose `tool_use` reads a file (`['Read']` for Claude Code)" },
    { row: OPTIONS.pathField, detail: "the read tool's input field holding the path (`'file_path'` for Claude Code)" },
    { option: 'resumeMessage', type: 'non-blank `string`, appended as a last user message', defaultText: 'none' },
    {
      option: 'tokenCounter',
      type: '`TokenCounter`, for the trigger, the stats, restore budgets and the LLM input budget',
      defaultText: 'o200k_base',
    },
    { option: 'summarizer', type: '`Summarizer`', defaultText: 'see below' },
    // These variables choose the default client; none of them is the option's value.
    {
      option: 'llmClient',
      type: '`LlmClient`',
      defaultText: 'see below',
      env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
    },
    { option: 'fileReader', type: '`FileReader`', defaultText: '`NodeFileReader`' },
    {
      option: 'fileWriter',
      type: '`FileWriter` (the archive)',
      defaultText: 'none: a file store (`createFileStore`) over `<workDir>/<outputDir>`',
    },
    {
      option: 'logger',
      type: '`Logger`: warnings (skipped files, archive failure, each failed summary attempt and its retry, the extractive fallback); `info` gets budget notes',
      defaultText: '`console.warn`, warnings only',
    },
    { option: 'signal', type: '`AbortSignal`', defaultText: 'none' },
  ],
};
