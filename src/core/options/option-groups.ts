/**
 * Options given in groups (`{ offload: { threshold } }`) that stand for flat options
 * (`threshold`) whose resolvers already exist: the groups are read against a schema, with an
 * error for an unknown or moved key, and the resolvers' errors are given the grouped path of
 * the option they name.
 */
import { describeValue, InvalidOptionError } from '../errors.js';

/** A group of options: each key is the flat option it stands for, or a nested group. */
export type OptionGroupSchema = { readonly [key: string]: string | OptionGroupSchema };

/** Grouped options read against their schema. */
export interface FlattenedOptions {
  /** Every grouped value given, under the flat option it stands for. */
  values: Record<string, unknown>;
  /** The grouped path of each flat option of the schema (`summaryMaxWords` → `compaction.summary.maxWords`). */
  paths: ReadonlyMap<string, string>;
}

function collectPaths(schema: OptionGroupSchema, prefix: string, paths: Map<string, string>): Map<string, string> {
  for (const [key, entry] of Object.entries(schema)) {
    if (typeof entry === 'string') paths.set(entry, `${prefix}${key}`);
    else collectPaths(entry, `${prefix}${key}.`, paths);
  }
  return paths;
}

/** `{ compaction: { summary: { maxWords: ... } } }` for the path `compaction.summary.maxWords`. */
function describeNesting(path: string): string {
  return path.split('.').reduceRight((inner, key) => `{ ${key}: ${inner} }`, '...');
}

function readGroup(
  group: unknown,
  schema: OptionGroupSchema,
  path: string,
  paths: ReadonlyMap<string, string>,
  values: Record<string, unknown>,
  removed: Readonly<Record<string, string>>,
): void {
  if (typeof group !== 'object' || group === null || Array.isArray(group)) {
    throw new InvalidOptionError(
      `${path} must be an object { ${Object.keys(schema).join(', ')} }, got ${describeValue(group)}`,
    );
  }
  for (const [key, value] of Object.entries(group)) {
    if (value === undefined) continue;
    const entry = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (entry === undefined) {
      const instead = Object.hasOwn(removed, `${path}.${key}`) ? removed[`${path}.${key}`] : undefined;
      if (instead !== undefined) throw new InvalidOptionError(`${path}.${key} is not an option any more: ${instead}`);
      const elsewhere = paths.get(key);
      const hint = elsewhere === undefined ? `expected one of ${Object.keys(schema).join(', ')}` : `it is ${elsewhere}`;
      throw new InvalidOptionError(`${path}.${key} is not an option: ${hint}`);
    }
    if (typeof entry === 'string') values[entry] = value;
    else readGroup(value, entry, `${path}.${key}`, paths, values, removed);
  }
}

/**
 * Reads `options` against `schema`: the keys of `topLevel` are left to the caller; each group
 * must be an object whose keys are the schema's; a key given with the value `undefined` counts
 * as absent. `removed` names grouped paths that are gone (`'compaction.trigger'`) and what
 * to write instead.
 *
 * @throws {InvalidOptionError} naming the key: an unknown one (`offload.treshold is not an
 *   option: expected one of ...`), a removed one (`compaction.trigger is not an option any
 *   more: ...`), a flat option given at the top that lives in a group (`keepRecent moved to
 *   offload.keepRecent`), a group that is not an object.
 */
export function flattenOptionGroups(
  options: Readonly<Record<string, unknown>>,
  schema: OptionGroupSchema,
  topLevel: ReadonlySet<string>,
  removed: Readonly<Record<string, string>> = {},
): FlattenedOptions {
  const paths = collectPaths(schema, '', new Map());
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || topLevel.has(key)) continue;
    const entry = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (entry !== undefined && typeof entry !== 'string') {
      readGroup(value, entry, key, paths, values, removed);
      continue;
    }
    const moved = paths.get(key);
    if (moved !== undefined) throw new InvalidOptionError(`${key} moved to ${moved}: pass ${describeNesting(moved)}`);
    throw new InvalidOptionError(
      `${key} is not an option: expected one of ${[...topLevel, ...Object.keys(schema)].join(', ')}`,
    );
  }
  return { values, paths };
}

// An option's name where a message names it: at its start, or anywhere when camelCased (a plain
// word such as `threshold` or `archive` is only an option's name at the start of a message).
const OPTION_NAME = /(?<![\w.])[A-Za-z]+(?!\w)/g;

/**
 * Runs `resolve`, and rethrows an {@link InvalidOptionError} it throws with the flat options it
 * names replaced by their grouped paths: the resolvers of `compactMessages` and
 * `offloadToolResults` say `summaryMaxWords must be an integer >= 1`, the grouped options'
 * user reads `compaction.summary.maxWords must be an integer >= 1`. Environment variables keep
 * their names.
 */
export function resolveWithOptionPaths<T>(paths: ReadonlyMap<string, string>, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (!(error instanceof InvalidOptionError)) throw error;
    const message = error.message.replace(OPTION_NAME, (name, offset: number) =>
      (offset === 0 || /[A-Z]/.test(name)) && paths.has(name) ? (paths.get(name) as string) : name,
    );
    if (message === error.message) throw error;
    throw new InvalidOptionError(message, error.cause === undefined ? {} : { cause: error.cause });
  }
}
