/**
 * Where compaction reads back a result that `offloadToolResults` wrote to a folder of its own
 * (the building blocks used one after the other): a file store over that folder, read only
 * (range reads, symlinks never followed, only the package's file names), and only for a folder
 * inside `workDir` or the `offloadDir` the caller named.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import type { OffloadFolderStore } from '../core/compact/stored-text.js';
import { isPathInside } from '../core/store/path-resolution.js';
import type { ContentStore } from '../core/ports.js';
import { createFileStore } from '../stores/file-store.js';

async function canonical(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/**
 * The {@link OffloadFolderStore} of one compaction: `offloadDir`'s store when it holds the
 * reference (absolute inside it, or `./<name>`); else, for an absolute reference, its own folder
 * when that folder is inside `workDir` (symlinks followed for the check); else none.
 */
export function createOffloadFolderStore(workDir: string, offloadDir: string | undefined): OffloadFolderStore {
  const stores = new Map<string, ContentStore>();
  const storeOf = (folder: string): ContentStore => {
    let store = stores.get(folder);
    if (store === undefined) {
      store = createFileStore({ dir: folder });
      stores.set(folder, store);
    }
    return store;
  };
  return async (reference) => {
    if (offloadDir !== undefined) {
      const store = storeOf(offloadDir);
      if (store.keyFor(reference) !== undefined) return store;
    }
    if (!isAbsolute(reference)) return undefined;
    const folder = dirname(reference);
    const [root, real] = await Promise.all([canonical(workDir), canonical(folder)]);
    return root !== undefined && real !== undefined && isPathInside(root, real) ? storeOf(folder) : undefined;
  };
}
