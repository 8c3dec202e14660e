/**
 * Options of both offload modes and their resolution: option, else environment variable, else
 * default. The environment is passed in; the entry points in `src/api` read
 * `process.env` at call time. Everything is validated here, before any side effect.
 */
import { DEFAULT_PREVIEW_HEAD_CHARS, DEFAULT_PREVIEW_TAIL_CHARS, READ_OFFLOADED_TOOL_NAME } from './defaults.js';
import type { Environment } from './env.js';
import { describeValue, InvalidOptionError } from '../errors.js';
import type { ResolvedPreview } from '../offload/offload-reference.js';
import { OPTIONS, resolveTableOption } from './option-table.js';
import type { ContentStore, FileWriter } from '../ports.js';
import { assertDirectorySetting, assertSafePathSegment } from '../store/safe-path.js';

/**
 * How the reference to an offloaded file is written: `'relative'` gives
 * `./tool-result-{id}.md` (relative to `outputDir`), `'absolute'` the file's absolute path.
 */
export type OffloadReferenceStyle = 'relative' | 'absolute';

/** Size of the opt-in preview that follows a reference. */
export interface OffloadPreviewOptions {
  /**
   * Characters (UTF-16 code units) shown from the start of the offloaded content; a surrogate
   * pair is never split.
   * @default 200 ({@link DEFAULT_PREVIEW_HEAD_CHARS})
   */
  headChars?: number | undefined;
  /**
   * Characters shown from the end of the offloaded content; a surrogate pair is never split.
   * @default 100 ({@link DEFAULT_PREVIEW_TAIL_CHARS})
   */
  tailChars?: number | undefined;
}

/** What decides which blocks a batch offload takes (shared by `planOffload` and the offload). */
export interface OffloadPlanOptions {
  /**
   * A `tool_result` whose content has at least this many characters is offloaded: a
   * string's `.length`, an array's `JSON.stringify(...).length`. Must be >= 1.
   * @default env `OFFLOAD_CHAR_THRESHOLD`, else 100 ({@link DEFAULT_OFFLOAD_CHAR_THRESHOLD})
   */
  charThreshold?: number | undefined;
  /**
   * The offload runs only when offloadable chars / total chars reaches this share;
   * a number in [0, 1]. `0` offloads whenever something qualifies; `1` only when every
   * counted character would be offloaded.
   * @default env `OFFLOAD_RATIO_THRESHOLD`, else 0.2 ({@link DEFAULT_OFFLOAD_RATIO_THRESHOLD})
   */
  ratioThreshold?: number | undefined;
  /**
   * Tool names whose results are never offloaded, e.g. the tool the agent uses to read an
   * offloaded file back (so that it is not offloaded again, in a loop). The name comes from the
   * `tool_use` with the same id earlier in the history; a result with no such `tool_use` is
   * not excluded. The package's read tool (`read_offloaded`) is always excluded. No
   * environment variable.
   * @default []
   */
  excludeTools?: readonly string[] | undefined;
  /**
   * The newest this many `tool_result` blocks (of any size) stay inline, so the model keeps
   * its latest tool output at hand. A non-negative integer. No environment variable.
   * @default 0 ({@link DEFAULT_OFFLOAD_KEEP_RECENT})
   */
  keepRecent?: number | undefined;
}

/** Options of `offloadToolResultsWithWriter`: everything but the output directory. */
export interface BatchOffloadOptions extends OffloadPlanOptions {
  /**
   * Opt-in: follow each reference with the first and last characters of the offloaded content,
   * so the model knows what it is without reading the file. `true` uses the default sizes.
   * Off by default, so a reference is exactly `[Content offloaded to: {path}]`. No environment variable.
   * @default false
   */
  preview?: boolean | OffloadPreviewOptions | undefined;
  /**
   * How references name the file: `'relative'` (`./tool-result-{id}.md`) or
   * `'absolute'` (the path also listed in `files`). No environment variable.
   * @default 'relative'
   */
  reference?: OffloadReferenceStyle | undefined;
}

/** Options of `offloadToolResults`: where to write (exactly one of `outputDir` and `store`), and how. */
export interface OffloadOptions extends BatchOffloadOptions {
  /**
   * Directory the files are written to (atomically, mode 0600); created (recursively, mode
   * 0700) when missing. Exactly one of `outputDir` and `store`.
   */
  outputDir?: string | undefined;
  /**
   * Where the content goes instead of `outputDir`: any {@link ContentStore} (`createFileStore`,
   * `createMemoryStore`, `createRedisStore`, `createS3Store`). Keys are `tool-result-{id}.md`;
   * references are the store's own (`redis://...`), or `./tool-result-{id}.md` for a file store.
   */
  store?: ContentStore | undefined;
  /**
   * Ends the call: it rejects with the signal's reason as soon as the signal aborts, even while
   * the store has not replied (a server that accepts the connection and never answers), and
   * no store call starts after that. Writes already sent may still land.
   */
  signal?: AbortSignal | undefined;
}

/** Plan options with every default applied. */
export interface ResolvedPlanOptions {
  charThreshold: number;
  ratioThreshold: number;
  excludeTools: ReadonlySet<string>;
  keepRecent: number;
}

/** Batch options with every default applied. */
export interface ResolvedBatchOffloadOptions extends ResolvedPlanOptions {
  preview: ResolvedPreview | null;
  reference: OffloadReferenceStyle;
}

/** Options of `offloadToolResult`. */
export interface DirectOffloadOptions {
  /**
   * The agent session; files go to `<outputDir>/<sessionId>/` (keys `<sessionId>/<id>.md` in a
   * store). 1-200 characters of `[A-Za-z0-9._-]`, not `.` or `..`. Required.
   */
  sessionId: string;
  /** Root directory of the session folders; created recursively when missing. Exactly one of `outputDir` and `store`. */
  outputDir?: string | undefined;
  /** Where the content goes instead of `outputDir`: any {@link ContentStore}; references are its own (`referenceFor`). */
  store?: ContentStore | undefined;
  /**
   * Opt-in: follow each reference with the first and last characters of the content (see
   * {@link BatchOffloadOptions.preview}).
   * @default false
   */
  preview?: boolean | OffloadPreviewOptions | undefined;
  /** Ends the call, as {@link OffloadOptions.signal}. */
  signal?: AbortSignal | undefined;
}

/** Options of `createToolResultOffloader` (the direct offload middleware of an agent loop). */
export interface ToolResultOffloaderOptions extends Omit<DirectOffloadOptions, 'signal'> {
  /**
   * A `tool_result` whose content has at least this many characters is offloaded; smaller
   * ones stay inline. Must be >= 1. No environment variable.
   * @default 1000 ({@link DEFAULT_DIRECT_OFFLOAD_THRESHOLD})
   */
  threshold?: number | undefined;
  /**
   * Tool names whose results are never offloaded. The name comes from the assistant message
   * passed as the middleware's second argument; without it, no result is excluded.
   * @default []
   */
  excludeTools?: readonly string[] | undefined;
  /**
   * Writes the files under `outputDir` instead of the file store that `outputDir` otherwise means
   * (`createFileStore`).
   * @default undefined
   */
  writer?: FileWriter | undefined;
}

/** Middleware options with every default applied and validated. */
export interface ResolvedToolResultOffloaderOptions {
  sessionId: string;
  threshold: number;
  excludeTools: ReadonlySet<string>;
  preview: ResolvedPreview | null;
}

function requireOptionsObject(name: string, options: unknown): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidOptionError(`${name} must be an object, got ${describeValue(options)}`);
  }
  return options as Record<string, unknown>;
}

/**
 * `excludeTools`, plus the package's own read tool: what it returns is a page of content that
 * is already offloaded, and offloading it again would send the model in circles.
 */
function resolveExcludedTools(excludeTools: unknown): ReadonlySet<string> {
  return new Set([READ_OFFLOADED_TOOL_NAME, ...resolveTableOption(OPTIONS.excludeTools, excludeTools)]);
}

/** Resolves `preview`: off (`undefined`, `false`) gives `null`; `true` the default sizes. */
export function resolvePreview(value: unknown): ResolvedPreview | null {
  if (value === undefined || value === false) return null;
  if (value === true) return { headChars: DEFAULT_PREVIEW_HEAD_CHARS, tailChars: DEFAULT_PREVIEW_TAIL_CHARS };
  const preview = requireOptionsObject('preview', value);
  return {
    headChars: resolveTableOption(OPTIONS.previewHeadChars, preview.headChars),
    tailChars: resolveTableOption(OPTIONS.previewTailChars, preview.tailChars),
  };
}

/**
 * Resolves the plan options from `options`, else `env`, else the defaults. Throws
 * {@link InvalidOptionError} naming the option or variable: a char threshold below 1, a ratio
 * outside [0, 1], text that is not a number, `keepRecent` not a non-negative integer,
 * `excludeTools` not an array of strings.
 */
export function resolvePlanOptions(options: OffloadPlanOptions | undefined, env: Environment): ResolvedPlanOptions {
  const fields = requireOptionsObject('options', options);
  return {
    charThreshold: resolveTableOption(OPTIONS.charThreshold, fields.charThreshold, env),
    ratioThreshold: resolveTableOption(OPTIONS.ratioThreshold, fields.ratioThreshold, env),
    excludeTools: resolveExcludedTools(fields.excludeTools),
    keepRecent: resolveTableOption(OPTIONS.keepRecent, fields.keepRecent, env),
  };
}

/** Resolves every batch option (see {@link resolvePlanOptions}), plus `preview` and `reference`. */
export function resolveBatchOffloadOptions(
  options: BatchOffloadOptions | undefined,
  env: Environment,
  storeKind = 'file',
): ResolvedBatchOffloadOptions {
  const plan = resolvePlanOptions(options, env);
  const fields = requireOptionsObject('options', options);
  return {
    ...plan,
    preview: resolvePreview(fields.preview),
    reference: resolveReferenceStyle(fields.reference, storeKind),
  };
}

/**
 * `reference`, checked against the store: `'relative'` (`./tool-result-{id}.md`) is
 * the default for files and means nothing elsewhere, so another store takes `'absolute'`, its
 * own reference (`redis://...`), and rejects an explicit `'relative'`.
 */
function resolveReferenceStyle(reference: unknown, storeKind: string): OffloadReferenceStyle {
  if (reference !== undefined && reference !== 'relative' && reference !== 'absolute') {
    throw new InvalidOptionError(`reference must be "relative" or "absolute", got ${describeValue(reference)}`);
  }
  if (storeKind === 'file') return reference ?? 'relative';
  if (reference === 'relative') {
    throw new InvalidOptionError(
      `reference "relative" needs a file store (a path relative to its directory); a ${storeKind} store names its content by its own reference: leave reference out or pass "absolute"`,
    );
  }
  return 'absolute';
}

/** Validates the output directory option: a non-blank string without control characters. */
export function resolveOutputDir(outputDir: unknown): string {
  return assertDirectorySetting('outputDir', outputDir);
}

/**
 * Validates the middleware options once, when it is created: `sessionId` a safe path segment
 * (else `UNSAFE_PATH`), `threshold` a number >= 1,
 * `excludeTools` an array of strings, `preview` as {@link resolvePreview}.
 */
export function resolveToolResultOffloaderOptions(
  options: ToolResultOffloaderOptions,
): ResolvedToolResultOffloaderOptions {
  const fields = requireOptionsObject('options', options);
  return {
    sessionId: assertSafePathSegment('sessionId', fields.sessionId),
    threshold: resolveTableOption(OPTIONS.threshold, fields.threshold),
    excludeTools: resolveExcludedTools(fields.excludeTools),
    preview: resolvePreview(fields.preview),
  };
}
