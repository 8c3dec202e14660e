/**
 * Where an entry point writes: the `store` the caller gave, or the file system under
 * `outputDir` (the default), or a `FileWriter` rooted there. Checked
 * once, here, before anything is written.
 */
import { describeValue, InvalidOptionError } from '../core/errors.js';
import { createFileWriterStore } from '../core/file-writer-store.js';
import { resolveOutputDir } from '../core/offload-options.js';
import type { ContentStore, FileWriter } from '../core/ports.js';
import { NodeFileWriter } from '../infrastructure/node-file-writer.js';

const STORE_METHODS = ['putIfAbsent', 'put', 'get', 'stat', 'list', 'delete', 'referenceFor', 'keyFor'] as const;

/** Throws {@link InvalidOptionError} unless `store` has every method of the {@link ContentStore} port and a `kind`. */
export function assertContentStore(store: unknown, optionName = 'store'): asserts store is ContentStore {
  const fields = store as Record<string, unknown> | null | undefined;
  const missing = typeof fields === 'object' && fields !== null ? STORE_METHODS.filter((method) => typeof fields[method] !== 'function') : [...STORE_METHODS];
  if (missing.length > 0 || typeof fields?.kind !== 'string') {
    const what = missing.length > 0 ? `lacks ${missing.map((method) => `${method}()`).join(', ')}` : 'has no string kind';
    throw new InvalidOptionError(`${optionName} must be a ContentStore (createFileStore, createRedisStore, ...): ${describeValue(store)} ${what}`);
  }
}

/** Throws {@link InvalidOptionError} unless `writer` has a `writeFile` method (`ensureDir` is optional). */
export function assertFileWriter(writer: unknown): asserts writer is FileWriter {
  const methods = writer as Partial<Record<keyof FileWriter, unknown>> | null | undefined;
  if (typeof methods?.writeFile !== 'function' || (methods.ensureDir !== undefined && typeof methods.ensureDir !== 'function')) {
    throw new InvalidOptionError(`writer must be a FileWriter with a writeFile method (and optionally ensureDir), got ${describeValue(writer)}`);
  }
}

/**
 * The store an entry point writes to: `store` when given, else the Node file system under
 * `outputDir` (atomic, exclusive, 0600 files). Exactly one of the two.
 *
 * @throws {InvalidOptionError} naming what is wrong: both, neither, or a bad value.
 */
export function resolveStoreTarget(fields: { store?: unknown; outputDir?: unknown }): ContentStore {
  if (fields.store !== undefined) {
    if (fields.outputDir !== undefined) {
      throw new InvalidOptionError('pass either store or outputDir, not both: a store decides where its content goes');
    }
    assertContentStore(fields.store);
    return fields.store;
  }
  return createFileWriterStore(new NodeFileWriter(), resolveOutputDir(fields.outputDir));
}

/** A store over `writer` rooted at `outputDir`, both checked. */
export function resolveWriterTarget(outputDir: unknown, writer: unknown): ContentStore {
  const directory = resolveOutputDir(outputDir);
  assertFileWriter(writer);
  return createFileWriterStore(writer, directory);
}
