/**
 * The config file of `proxy` and `wrap`: `agent-context.json` in the working directory, or the
 * file `--config` names. JSON with comments and trailing commas (JSONC). It holds the proxy's
 * flags under `proxy` (camelCase: `offloadTiming`, `workDir`) and the context manager's option
 * groups `offload` and `compaction`, as `createContextManager` takes them:
 *
 * ```jsonc
 * {
 *   // the window of the model the agent uses
 *   "proxy": { "window": 100000, "summarizer": "upstream" },
 *   "offload": { "excludeTools": ["Read"] },
 *   "compaction": { "trigger": { "ratio": 0.8 } },
 * }
 * ```
 *
 * Every key is checked before the proxy starts: one that is not a setting is refused with its
 * path and the keys that are (a misspelt key would otherwise be ignored without a word), a value
 * of the wrong type or range with its path, what was expected and what was given.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type * as JsoncParser from 'jsonc-parser';
import type { ManagerCompactionOptions, ManagerOffloadOptions } from '../api/context-manager-options.js';
import { MANAGER_OPTION_GROUPS } from '../api/context-manager-options.js';
import { describeNumberRule, type NumberRule } from '../core/options/env.js';
import { describeValue } from '../core/errors.js';
import {
  OPTIONS,
  REMOVED_GROUPED_OPTIONS,
  resolveTableOption,
  type OptionGroupMapping,
  type OptionRow,
} from '../core/options/option-table.js';
import { UsageError } from './errors.js';
import { isRecord } from '../formats/fields.js';

/** The file `proxy` and `wrap` read from the working directory when `--config` names none. */
export const DEFAULT_CONFIG_FILE_NAME = 'agent-context.json';

/** The proxy's flags as the file writes them (each optional). */
export interface ProxyFileSettings {
  port?: number;
  host?: string;
  upstream?: string;
  dir?: string;
  /** The context window in tokens (`--window`). */
  window?: number;
  summarizer?: 'extractive' | 'upstream';
  workDir?: string;
  store?: string;
  /** Who opens references (`--read-tool`): the agent's own tools, or the proxy's read tool. */
  readTool?: 'own-tools' | 'proxy';
  /** The token every request must carry (`--auth-token`); `AGENT_CONTEXT_TOKEN` comes first. */
  authToken?: string;
}

/** A config file, read and checked. */
export interface ProxyConfigFile {
  /** The file's absolute path. */
  path: string;
  proxy: ProxyFileSettings;
  offload: ManagerOffloadOptions | undefined;
  compaction: ManagerCompactionOptions | undefined;
}

/** What a value of the file must be. */
type FieldRule =
  | { kind: 'number'; rule: NumberRule }
  | { kind: 'string' }
  | { kind: 'string-list' }
  | { kind: 'one-of'; values: readonly string[] }
  | { kind: 'preview' };

/** A group of the file: each key a value's rule or a nested group. */
interface GroupSchema {
  readonly [key: string]: FieldRule | GroupSchema;
}

const STRING: FieldRule = { kind: 'string' };
const STRING_LIST: FieldRule = { kind: 'string-list' };
const CHAR_COUNT: FieldRule = { kind: 'number', rule: { min: 1, integer: true } };

/** The rule of a library option that has a row in the option table, by its flat name. */
function tableRule(flatName: string): FieldRule {
  const row = Object.values(OPTIONS as Record<string, OptionRow>).find((candidate) => candidate.option === flatName);
  if (row === undefined || typeof row.rule !== 'object') return STRING;
  return { kind: 'number', rule: row.rule };
}

/**
 * The whole file. The manager's groups hold only the settings a file can carry: a port
 * (`fileReader`) or a request of the agent's own (`conversationRequest`) is not a JSON value.
 */
const CONFIG_SCHEMA: GroupSchema = {
  proxy: {
    port: { kind: 'number', rule: { min: 0, max: 65535, integer: true } },
    host: STRING,
    upstream: STRING,
    dir: STRING,
    window: { kind: 'number', rule: { min: 1, integer: true } },
    summarizer: { kind: 'one-of', values: ['extractive', 'upstream'] },
    workDir: STRING,
    store: STRING,
    readTool: { kind: 'one-of', values: ['own-tools', 'proxy'] },
    authToken: STRING,
  },
  offload: {
    timing: { kind: 'one-of', values: ['as-they-age', 'on-arrival'] },
    directThreshold: tableRule(MANAGER_OPTION_GROUPS.offload.directThreshold),
    minAgedResultChars: CHAR_COUNT,
    charThreshold: tableRule(MANAGER_OPTION_GROUPS.offload.charThreshold),
    ratioThreshold: tableRule(MANAGER_OPTION_GROUPS.offload.ratioThreshold),
    keepRecent: tableRule(MANAGER_OPTION_GROUPS.offload.keepRecent),
    excludeTools: STRING_LIST,
    preview: { kind: 'preview' },
    maxInlineResultChars: CHAR_COUNT,
    agedBudgetChars: CHAR_COUNT,
  },
  compaction: {
    triggerRatio: tableRule(MANAGER_OPTION_GROUPS.compaction.triggerRatio),
    summary: {
      model: STRING,
      maxWords: tableRule(MANAGER_OPTION_GROUPS.compaction.summary.maxWords),
      inputMaxTokens: tableRule(MANAGER_OPTION_GROUPS.compaction.summary.inputMaxTokens),
      maxRetries: tableRule(MANAGER_OPTION_GROUPS.compaction.summary.maxRetries),
      retryBaseDelayMs: tableRule(MANAGER_OPTION_GROUPS.compaction.summary.retryBaseDelayMs),
      mode: { kind: 'one-of', values: ['prompt', 'reuse-prefix'] },
    },
    restore: {
      maxFiles: tableRule(MANAGER_OPTION_GROUPS.compaction.restore.maxFiles),
      maxTokensPerFile: tableRule(MANAGER_OPTION_GROUPS.compaction.restore.maxTokensPerFile),
      maxTokensTotal: tableRule(MANAGER_OPTION_GROUPS.compaction.restore.maxTokensTotal),
      readToolNames: STRING_LIST,
      pathField: STRING,
    },
    archivePolicy: { kind: 'one-of', values: ['required', 'best-effort'] },
    resumeMessage: STRING,
  },
};

/** Settings of the file that are gone, and what to write instead. */
const REMOVED_SETTINGS: Readonly<Record<string, string>> = {
  ...REMOVED_GROUPED_OPTIONS,
  'proxy.offloadTiming': 'it is offload.timing',
};

function isRule(entry: FieldRule | GroupSchema): entry is FieldRule {
  return typeof (entry as { kind?: unknown }).kind === 'string';
}

/** The expectation a rule's message states. */
function describeRule(rule: FieldRule): string {
  switch (rule.kind) {
    case 'number':
      return describeNumberRule(rule.rule);
    case 'string':
      return 'a non-empty string';
    case 'string-list':
      return 'an array of strings';
    case 'one-of':
      return `one of ${rule.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'preview':
      return 'true, false or { "headChars": n, "tailChars": n }';
  }
}

function isNumberWithin(value: unknown, rule: NumberRule): boolean {
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (rule.min === undefined || value >= rule.min) &&
    (rule.above === undefined || value > rule.above) &&
    (rule.max === undefined || value <= rule.max) &&
    (!rule.integer || Number.isInteger(value))
  );
}

function fitsRule(value: unknown, rule: FieldRule, path: string, fail: (message: string) => never): boolean {
  switch (rule.kind) {
    case 'number':
      return isNumberWithin(value, rule.rule);
    case 'string':
      return typeof value === 'string' && value.trim() !== '';
    case 'string-list':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'one-of':
      return typeof value === 'string' && rule.values.includes(value);
    case 'preview':
      if (typeof value === 'boolean') return true;
      if (!isRecord(value)) return false;
      checkGroup(
        value,
        {
          headChars: { kind: 'number', rule: { min: 0, integer: true } },
          tailChars: { kind: 'number', rule: { min: 0, integer: true } },
        },
        path,
        fail,
      );
      return true;
  }
}

/** Checks `value` against `schema`; `fail` throws with the message. */
function checkGroup(
  value: Record<string, unknown>,
  schema: GroupSchema,
  path: string,
  fail: (message: string) => never,
): void {
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    if (path === '' && key === '$schema') continue;
    const entry = Object.hasOwn(schema, key) ? schema[key] : undefined;
    const instead = Object.hasOwn(REMOVED_SETTINGS, childPath) ? REMOVED_SETTINGS[childPath] : undefined;
    if (entry === undefined && instead !== undefined) fail(`${childPath} is not a setting any more: ${instead}`);
    if (entry === undefined) fail(`${childPath} is not a setting: expected one of ${Object.keys(schema).join(', ')}`);
    if (isRule(entry)) {
      if (!fitsRule(child, entry, childPath, fail))
        fail(`${childPath} must be ${describeRule(entry)}, got ${describeValue(child)}`);
    } else {
      if (!isRecord(child)) fail(`${childPath} must be an object, got ${describeValue(child)}`);
      checkGroup(child, entry, childPath, fail);
    }
  }
}

const require = createRequire(import.meta.url);

/** Where an offset is, as a message says it: `line 3, column 2` (1-based). */
function toLineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/**
 * Parses and checks a config file's text (JSONC: comments and trailing commas allowed).
 *
 * @param name How messages name the file.
 * @throws {UsageError} naming the file and the first fault: a syntax error with its line and
 * column, a key that is not a setting with its path and the keys that are, a value with its
 * path, what was expected and what was given.
 */
export function parseProxyConfig(text: string, name: string, command: string): Omit<ProxyConfigFile, 'path'> {
  const fail = (message: string): never => {
    throw new UsageError(`${name}: ${message}`, command);
  };
  const parser = require('jsonc-parser') as typeof JsoncParser;
  const errors: JsoncParser.ParseError[] = [];
  const value: unknown = parser.parse(text, errors, { allowTrailingComma: true, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined)
    fail(
      `not valid JSON (comments and trailing commas allowed): ${parser.printParseErrorCode(first.error)} at ${toLineAndColumn(text, first.offset)}`,
    );
  if (!isRecord(value)) fail(`must hold an object, got ${describeValue(value)}`);
  const settings = value as Record<string, unknown>;
  checkGroup(settings, CONFIG_SCHEMA, '', fail);
  return {
    proxy: (settings.proxy ?? {}) as ProxyFileSettings,
    offload: settings.offload as ManagerOffloadOptions | undefined,
    compaction: settings.compaction as ManagerCompactionOptions | undefined,
  };
}

/**
 * Reads the config file: `explicitPath` when given (it must exist), else
 * {@link DEFAULT_CONFIG_FILE_NAME} in `directory` when there is one, else none.
 *
 * @throws {UsageError} for a file `--config` names that cannot be read, and for any fault
 * {@link parseProxyConfig} finds.
 */
export async function loadProxyConfig(
  explicitPath: string | undefined,
  directory: string,
  command: string,
): Promise<ProxyConfigFile | undefined> {
  const path = resolve(directory, explicitPath ?? DEFAULT_CONFIG_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (explicitPath === undefined && code === 'ENOENT') return undefined;
    throw new UsageError(
      `cannot read the config file ${explicitPath ?? DEFAULT_CONFIG_FILE_NAME}: ${(error as Error).message}`,
      command,
    );
  }
  return { path, ...parseProxyConfig(text, explicitPath ?? DEFAULT_CONFIG_FILE_NAME, command) };
}

/** The grouped path of each flat option of the manager's groups (`compactThresholdRatio` → `['compaction', 'triggerRatio']`). */
function groupedPaths(mapping: OptionGroupMapping, prefix: readonly string[] = []): Map<string, readonly string[]> {
  const paths = new Map<string, readonly string[]>();
  for (const [key, entry] of Object.entries(mapping)) {
    if (typeof entry === 'string') paths.set(entry, [...prefix, key]);
    else for (const [flat, path] of groupedPaths(entry, [...prefix, key])) paths.set(flat, path);
  }
  return paths;
}

/** The manager's groups, as the proxy passes them on. */
export interface ManagerGroups {
  offload: ManagerOffloadOptions | undefined;
  compaction: ManagerCompactionOptions | undefined;
}

/**
 * The manager's groups with the environment's values put in: each variable of the option table
 * that is set (and not blank) gives the grouped option it stands for (`OFFLOAD_CHAR_THRESHOLD`
 * → `offload.charThreshold`, `COMPACT_THRESHOLD_RATIO` → `compaction.triggerRatio`), over what
 * `groups` (the config file's) holds. The library reads no variable when a server runs it:
 * the CLI reads them here, once, and passes values.
 *
 * @throws {InvalidOptionError} naming the variable, for a value out of its range.
 */
export function applyEnvironment(
  groups: ManagerGroups,
  env: Readonly<Record<string, string | undefined>>,
): ManagerGroups {
  const result: Record<string, unknown> = {
    offload: groups.offload,
    compaction: groups.compaction,
  };
  const paths = groupedPaths(MANAGER_OPTION_GROUPS);
  for (const row of Object.values(OPTIONS as Record<string, OptionRow>)) {
    const path = paths.get(row.option);
    if (row.env === undefined || path === undefined || (env[row.env] ?? '').trim() === '') continue;
    const value = resolveTableOption(row, undefined, env);
    let group = result;
    // copied on the way down: the groups given are not changed
    for (const key of path.slice(0, -1)) {
      const copy: Record<string, unknown> = { ...(isRecord(group[key]) ? group[key] : {}) };
      group[key] = copy;
      group = copy;
    }
    group[path.at(-1) as string] = value;
  }
  return result as unknown as ManagerGroups;
}
