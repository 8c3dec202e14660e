/**
 * Where an entry point reads and writes, decided once, here, before anything is written: the
 * `store` the caller gave; else `outputDir`, which always means the file store
 * (`createFileStore`); or, for the entry points that take one, a `FileWriter` adapted to a store
 * under `outputDir`. This is the one place a writer becomes a store.
 */
import { describeValue, InvalidOptionError } from '../core/errors.js';
import { resolvePathFrom } from '../core/store/path-resolution.js';
import { resolveOutputDir } from '../core/options/offload-options.js';
import type { ContentStore, FileWriter } from '../core/ports.js';
import { createFileStore } from '../stores/file-store.js';
import { createFileWriterStore } from '../stores/file-writer-store.js';

const STORE_METHODS = ['putIfAbsent', 'put', 'get', 'stat', 'list', 'delete', 'referenceFor', 'keyFor'] as const;

/** Throws {@link InvalidOptionError} unless `store` has every method of the {@link ContentStore} port and a `kind`. */
export function assertContentStore(store: unknown, optionName = 'store'): asserts store is ContentStore {
  const fields = store as Record<string, unknown> | null | undefined;
  const missing =
    typeof fields === 'object' && fields !== null
      ? STORE_METHODS.filter((method) => typeof fields[method] !== 'function')
      : [...STORE_METHODS];
  if (missing.length > 0 || typeof fields?.kind !== 'string') {
    const what =
      missing.length > 0 ? `lacks ${missing.map((method) => `${method}()`).join(', ')}` : 'has no string kind';
    throw new InvalidOptionError(
      `${optionName} must be a ContentStore (createFileStore, createRedisStore, ...): ${describeValue(store)} ${what}`,
    );
  }
}

/** Throws {@link InvalidOptionError} unless `writer` has a `writeFile` method (`ensureDir` is optional). */
function assertFileWriter(writer: unknown): asserts writer is FileWriter {
  const methods = writer as Partial<Record<keyof FileWriter, unknown>> | null | undefined;
  if (
    typeof methods?.writeFile !== 'function' ||
    (methods.ensureDir !== undefined && typeof methods.ensureDir !== 'function')
  ) {
    throw new InvalidOptionError(
      `writer must be a FileWriter with a writeFile method (and optionally ensureDir), got ${describeValue(writer)}`,
    );
  }
}

/** The options that say where an entry point's content is. */
export interface StoreTargetFields {
  store?: unknown;
  outputDir?: unknown;
  /** A `FileWriter`, for the entry points that take one: rooted at `outputDir`. */
  writer?: unknown;
}

/** What the errors of {@link resolveStoreTarget} add after their colon, for the entry point at hand. */
export interface StoreTargetReasons {
  /** Why `store` cannot come with `outputDir` (or `writer`). */
  both?: string | undefined;
  /** Where the content is, said when neither is given; without it, `outputDir` is checked as a setting. */
  neither?: string | undefined;
}

/**
 * The store an entry point uses: `store` when given; else a file store over `outputDir`
 * (atomic, exclusive, 0600 files, symlinks never followed); else `writer` adapted to a store
 * rooted at `outputDir`.
 *
 * @throws {InvalidOptionError} naming what is wrong: `store` together with `outputDir` or
 * `writer`, neither (when `reasons.neither` is given), a bad `outputDir`, `store` or `writer`.
 */
export function resolveStoreTarget(fields: StoreTargetFields, reasons: StoreTargetReasons = {}): ContentStore {
  if (fields.store !== undefined) {
    const other = fields.writer !== undefined ? 'writer' : fields.outputDir !== undefined ? 'outputDir' : undefined;
    if (other !== undefined)
      throw new InvalidOptionError(
        `pass either store or ${other}, not both${reasons.both === undefined ? '' : `: ${reasons.both}`}`,
      );
    assertContentStore(fields.store);
    return fields.store;
  }
  if (fields.outputDir === undefined && reasons.neither !== undefined)
    throw new InvalidOptionError(`pass store or outputDir: ${reasons.neither}`);
  const directory = resolveOutputDir(fields.outputDir);
  if (fields.writer === undefined) return createFileStore({ dir: directory });
  assertFileWriter(fields.writer);
  return createFileWriterStore(fields.writer, directory);
}

/** Where compaction archives: the store it writes to, and the one it may read offloaded content back from. */
export interface ArchiveTarget {
  /** Takes the archive and the offload index. */
  store: ContentStore;
  /** Reads back offloaded results and an earlier offload index; none for a `FileWriter`, which only writes. */
  readStore: ContentStore | undefined;
}

/**
 * Compaction's store: `store` when given; else `fileWriter` adapted to a store rooted at
 * `<workDir>/<outputDir>` (through the writer's `resolvePath` when it has one, else resolved
 * lexically); else a file store there. `store` with `fileWriter` or `outputDir` is refused
 * where the options are resolved.
 */
export function resolveArchiveTarget(
  fields: { store?: ContentStore | undefined; fileWriter?: FileWriter | undefined },
  workDir: string,
  outputDir: string,
): ArchiveTarget {
  if (fields.store !== undefined) return { store: fields.store, readStore: fields.store };
  const writer = fields.fileWriter;
  if (writer === undefined) {
    const store = createFileStore({ dir: resolvePathFrom(workDir, outputDir) });
    return { store, readStore: store };
  }
  const directory =
    writer.resolvePath !== undefined ? writer.resolvePath(workDir, outputDir) : resolvePathFrom(workDir, outputDir);
  return { store: createFileWriterStore(writer, directory, { joinPaths: resolvePathFrom }), readStore: undefined };
}
