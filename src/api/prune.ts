/**
 * Retention: `pruneOffloaded` removes offloaded results and compaction archives older than a
 * cutoff, from a store or an output directory, and says what it removed.
 */
import { resolveNumberSetting } from '../core/options/env.js';
import { describeValue, InvalidOptionError } from '../core/errors.js';
import type { ContentStore } from '../core/ports.js';
import { pruneStore, type PruneResult } from '../core/store/prune.js';
import { assertStoreKeyPrefix } from '../core/store/store-keys.js';
import { resolveStoreTarget } from './store-target.js';

export type { PrunedEntry, PruneResult } from '../core/store/prune.js';

/** Options of {@link pruneOffloaded}: where (exactly one of `store` and `outputDir`), and what goes. */
export interface PruneOffloadedOptions {
  /** The store the offload and compaction wrote to. */
  store?: ContentStore | undefined;
  /** The directory they wrote to (`outputDir`, or a compaction archive directory): pruned through a file store over it. */
  outputDir?: string | undefined;
  /** Entries written more than this many milliseconds ago go (`7 * 24 * 60 * 60 * 1000` for a week). Required; >= 0. */
  olderThanMs: number;
  /**
   * Only keys starting with it: a session (`'session-1/'`), or `''` for the whole store.
   * @default ''
   */
  prefix?: string | undefined;
  /**
   * List what would be removed, and remove nothing.
   * @default false
   */
  dryRun?: boolean | undefined;
  /**
   * The clock the cutoff is measured from.
   * @default () => new Date()
   */
  now?: (() => Date) | undefined;
}

/**
 * Removes the offloaded results, compaction archives and session records written more than
 * `olderThanMs` ago, from sessions that are idle:
 * every entry under `prefix` whose name is one this package writes (`tool-result-*.md`,
 * `<session>/*.md`, `compact-*.json` at the top or in a session folder, and the context
 * manager's records of a session, `<session>/.records/*.json`) and whose time
 * (`createdAt`: a file's modification time) is strictly before `now - olderThanMs`, and the
 * temp files of writes a killed process left (`.<name>.<pid>.<hex>.tmp`) older than that and
 * than an hour. Other files, other deeper folders and writes in progress are never touched. With
 * `dryRun`, nothing is deleted and the result lists what would be.
 *
 * A session folder goes whole or not at all: when any of its results, archives or records
 * changed within the cutoff, the session is live (a conversation may still send the references
 * it holds): nothing of it is removed, and `liveSessions` names it.
 *
 * A directory (`outputDir`, or a store of kind `'file'`) is pruned only when the package
 * created it: it then holds the marker file `.agent-context-offload`. Anywhere else a user's
 * `docs/README.md` has the shape of a direct offload's `<session>/<id>.md`, so an unmarked
 * directory is refused. A directory written by version 0.3.0 has no marker: once you know
 * everything in it is the package's, create that file (empty) to prune it.
 *
 * Removing content makes its references unreadable: a history that still holds them gets "no
 * offloaded content at ..." from the read tool. An idle session may still be resumed: choose an
 * age longer than any pause you expect.
 *
 * @returns what was removed (sorted by key), the bytes freed, whether it was a dry run, and the
 * live sessions kept whole.
 * @throws {InvalidOptionError} for both or neither of `store` and `outputDir`, a bad
 * `olderThanMs`, `dryRun` or `now`, before anything is listed; {@link UnsafePathError} for a
 * `prefix` that is not a key prefix, or a directory without the marker file (naming it);
 * `ReadFailedError` / `WriteFailedError` when the store cannot be listed or an entry cannot be
 * deleted (entries deleted before stay deleted).
 *
 * @example
 * ```ts
 * const week = 7 * 24 * 60 * 60 * 1000;
 * const { removed, freedBytes } = await pruneOffloaded({ outputDir: '.offload', olderThanMs: week });
 * ```
 */
export async function pruneOffloaded(options: PruneOffloadedOptions): Promise<PruneResult> {
  // Read defensively: JavaScript callers may pass no options at all.
  const fields: Partial<PruneOffloadedOptions> = options ?? {};
  if (fields.olderThanMs === undefined)
    throw new InvalidOptionError('olderThanMs is required: the age in milliseconds beyond which entries go');
  const olderThanMs = resolveNumberSetting({ option: 'olderThanMs', default: 0, rule: { min: 0 } }, fields.olderThanMs);
  const prefix = assertStoreKeyPrefix('prefix', fields.prefix ?? '');
  if (fields.dryRun !== undefined && typeof fields.dryRun !== 'boolean')
    throw new InvalidOptionError(`dryRun must be a boolean, got ${describeValue(fields.dryRun)}`);
  if (fields.now !== undefined && typeof fields.now !== 'function')
    throw new InvalidOptionError(`now must be a function returning a Date, got ${describeValue(fields.now)}`);
  const now = fields.now === undefined ? new Date() : fields.now();
  if (!(now instanceof Date) || Number.isNaN(now.getTime()))
    throw new InvalidOptionError(`now must return a valid Date, got ${describeValue(now)}`);
  const store = resolveStoreTarget(
    { store: fields.store, outputDir: fields.outputDir },
    { both: 'one store is pruned at a time', neither: 'where the offloaded content is' },
  );
  return pruneStore(store, { olderThanMs, prefix, dryRun: fields.dryRun ?? false, now });
}
