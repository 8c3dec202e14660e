import { describe, expect, it } from 'vitest';
import { pruneOffloaded } from '../../../../src/api/prune.js';
import { escapeForTerminal, parseDuration } from '../../../../src/cli/prune.js';
import { UnsafePathError, WriteFailedError } from '../../../../src/core/errors.js';
import type { ContentStore } from '../../../../src/core/ports.js';
import { isOffloadedKey } from '../../../../src/core/offload/offload-names.js';
import { MIN_PARTIAL_WRITE_AGE_MS, pruneStore } from '../../../../src/core/store/prune.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-03-01T12:00:00Z');

/** A memory store holding `entries`, each written `ageDays` before {@link NOW}. */
async function createAgedStore(entries: Record<string, { ageDays: number; text?: string }>): Promise<ContentStore> {
  let clock = NOW.getTime();
  const store = createMemoryStore({ now: () => new Date(clock) });
  for (const [key, { ageDays, text }] of Object.entries(entries)) {
    clock = NOW.getTime() - ageDays * DAY_MS;
    await store.putIfAbsent(key, text ?? `content of ${key}`);
  }
  return store;
}

async function listKeys(store: ContentStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list('')) keys.push(key);
  return keys.sort();
}

describe('isOffloadedKey', () => {
  it.each([
    'tool-result-toolu_01.md',
    'tool-result-toolu_01-2.md',
    'tool-result-etcpasswd~0abc123def45.md',
    'compact-2026-01-02T03-04-05Z-1.json',
    'session-1/toolu_01.md',
    'session-1/toolu_01~1.md',
    'session-1/tool-result-a.md',
    'session-1/compact-2026-01-02T03-04-05Z-12.json',
  ])('accepts %s', (key) => {
    expect(isOffloadedKey(key)).toBe(true);
  });

  it.each([
    'notes.md',
    'tool-result-a.txt',
    'README.md',
    'compact-latest.json',
    'session-1/notes.txt',
    'session-1/compact-x.json',
    'session-1/.tool-result-a.md.1a2b.tmp',
    'a/b/tool-result-c.md',
    'session 1/toolu_01.md',
    '../tool-result-a.md',
    'session-1/',
  ])('refuses %s', (key) => {
    expect(isOffloadedKey(key)).toBe(false);
  });
});

describe('pruneStore', () => {
  const entries = {
    'tool-result-old.md': { ageDays: 10, text: 'x'.repeat(100) },
    'tool-result-new.md': { ageDays: 1 },
    's1/toolu_old.md': { ageDays: 8, text: 'é'.repeat(50) },
    's2/toolu_new.md': { ageDays: 2 },
    's1/compact-2026-02-01T00-00-00Z-1.json': { ageDays: 28, text: '[]' },
    'notes.md': { ageDays: 100 },
    's1/notes.txt': { ageDays: 100 },
    'deep/er/tool-result-x.md': { ageDays: 100 },
  };

  it('removes the package entries older than the cutoff, and nothing else', async () => {
    const store = await createAgedStore(entries);
    const result = await pruneStore(store, { olderThanMs: 7 * DAY_MS, prefix: '', dryRun: false, now: NOW });
    expect(result).toEqual({
      removed: [
        {
          key: 's1/compact-2026-02-01T00-00-00Z-1.json',
          reference: 'memory://default/s1/compact-2026-02-01T00-00-00Z-1.json',
          size: 2,
          createdAt: new Date(NOW.getTime() - 28 * DAY_MS),
        },
        {
          key: 's1/toolu_old.md',
          reference: 'memory://default/s1/toolu_old.md',
          size: 100,
          createdAt: new Date(NOW.getTime() - 8 * DAY_MS),
        },
        {
          key: 'tool-result-old.md',
          reference: 'memory://default/tool-result-old.md',
          size: 100,
          createdAt: new Date(NOW.getTime() - 10 * DAY_MS),
        },
      ],
      freedBytes: 202,
      dryRun: false,
      liveSessions: ['s2'],
    });
    expect(await listKeys(store)).toEqual([
      'deep/er/tool-result-x.md',
      'notes.md',
      's1/notes.txt',
      's2/toolu_new.md',
      'tool-result-new.md',
    ]);
  });

  it('lists the same entries in a dry run and deletes nothing', async () => {
    const store = await createAgedStore(entries);
    const before = await listKeys(store);
    const result = await pruneStore(store, { olderThanMs: 7 * DAY_MS, prefix: '', dryRun: true, now: NOW });
    expect(result.dryRun).toBe(true);
    expect(result.removed.map((entry) => entry.key)).toEqual([
      's1/compact-2026-02-01T00-00-00Z-1.json',
      's1/toolu_old.md',
      'tool-result-old.md',
    ]);
    expect(result.freedBytes).toBe(202);
    expect(await listKeys(store)).toEqual(before);
  });

  it('keeps an entry exactly at the cutoff (strictly older goes)', async () => {
    const store = await createAgedStore({
      'tool-result-a.md': { ageDays: 7 },
      'tool-result-b.md': { ageDays: 7.0001 },
    });
    const result = await pruneStore(store, { olderThanMs: 7 * DAY_MS, prefix: '', dryRun: false, now: NOW });
    expect(result.removed.map((entry) => entry.key)).toEqual(['tool-result-b.md']);
  });

  it('prunes only under the prefix', async () => {
    const store = await createAgedStore({
      's1/a.md': { ageDays: 30 },
      's2/a.md': { ageDays: 30 },
      'tool-result-a.md': { ageDays: 30 },
    });
    const result = await pruneStore(store, { olderThanMs: DAY_MS, prefix: 's2/', dryRun: false, now: NOW });
    expect(result.removed.map((entry) => entry.key)).toEqual(['s2/a.md']);
    expect(await listKeys(store)).toEqual(['s1/a.md', 'tool-result-a.md']);
  });

  it('skips an entry removed between the listing and its stat', async () => {
    const inner = await createAgedStore({ 'tool-result-a.md': { ageDays: 30 }, 'tool-result-b.md': { ageDays: 30 } });
    const store: ContentStore = {
      ...inner,
      stat: async (key) => (key === 'tool-result-a.md' ? undefined : inner.stat(key)),
    };
    const result = await pruneStore(store, { olderThanMs: DAY_MS, prefix: '', dryRun: false, now: NOW });
    expect(result.removed.map((entry) => entry.key)).toEqual(['tool-result-b.md']);
  });

  it('rejects with the store error when a delete fails, and stops deleting', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 100 }, (_, index) => [`tool-result-${String(index).padStart(3, '0')}.md`, { ageDays: 30 }]),
    );
    const inner = await createAgedStore(many);
    let deletes = 0;
    const store: ContentStore = {
      ...inner,
      delete: async (key) => {
        deletes += 1;
        if (deletes === 5) throw new WriteFailedError(`could not delete ${key}: permission denied`);
        await inner.delete(key);
      },
    };
    await expect(pruneStore(store, { olderThanMs: DAY_MS, prefix: '', dryRun: false, now: NOW })).rejects.toThrow(
      WriteFailedError,
    );
    // the workers in flight finish their key; none takes another
    expect(deletes).toBeLessThan(5 + 16);
  });
});

describe('pruneStore and live sessions', () => {
  const record = (kind: 'compact' | 'count', session: string): string =>
    `${session}/.records/${kind}-3-${'a'.repeat(64)}.json`;

  it('keeps a session whole when one of its entries changed within the cutoff, and names it', async () => {
    const store = await createAgedStore({
      's1/toolu_old.md': { ageDays: 30 },
      's1/compact-2026-01-01T00-00-00Z-1.json': { ageDays: 30 },
      's1/toolu_new.md': { ageDays: 0.5 },
      's2/toolu_old.md': { ageDays: 30 },
    });
    const result = await pruneStore(store, { olderThanMs: 7 * DAY_MS, prefix: '', dryRun: false, now: NOW });
    expect(result.removed.map((entry) => entry.key)).toEqual(['s2/toolu_old.md']);
    expect(result.liveSessions).toEqual(['s1']);
    expect(await listKeys(store)).toEqual([
      's1/compact-2026-01-01T00-00-00Z-1.json',
      's1/toolu_new.md',
      's1/toolu_old.md',
    ]);
  });

  it('takes a session whose records alone changed within the cutoff for a live one', async () => {
    const store = await createAgedStore({
      's1/toolu_old.md': { ageDays: 30 },
      [record('compact', 's1')]: { ageDays: 30 },
      [record('count', 's1')]: { ageDays: 0.1 },
    });
    const result = await pruneStore(store, { olderThanMs: DAY_MS, prefix: '', dryRun: false, now: NOW });
    expect(result.removed).toEqual([]);
    expect(result.liveSessions).toEqual(['s1']);
  });

  it('removes an idle session whole: its contents, archives and records', async () => {
    const store = await createAgedStore({
      's1/toolu_old.md': { ageDays: 30 },
      's1/compact-2026-01-01T00-00-00Z-1.json': { ageDays: 20 },
      [record('compact', 's1')]: { ageDays: 20 },
      [record('count', 's1')]: { ageDays: 9 },
    });
    const result = await pruneStore(store, { olderThanMs: 7 * DAY_MS, prefix: '', dryRun: false, now: NOW });
    expect(result.removed).toHaveLength(4);
    expect(result.liveSessions).toEqual([]);
    expect(await listKeys(store)).toEqual([]);
  });

  it('looks at the whole folder when the prefix names only part of it', async () => {
    const store = await createAgedStore({
      's1/toolu_old.md': { ageDays: 30 },
      [record('count', 's1')]: { ageDays: 0.1 },
    });
    const result = await pruneStore(store, { olderThanMs: DAY_MS, prefix: 's1/toolu', dryRun: false, now: NOW });
    expect(result.removed).toEqual([]);
    expect(result.liveSessions).toEqual(['s1']);
  });

  it('keeps the partial writes of a live session', async () => {
    const inner = await createAgedStore({ 's1/toolu_new.md': { ageDays: 0.1 }, 's1/.a.tmp': { ageDays: 30 } });
    const isPartial = (key: string): boolean => key.split('/').at(-1)!.startsWith('.');
    const select = (wanted: boolean) =>
      async function* (prefix: string): AsyncIterable<string> {
        for await (const key of inner.list(prefix)) if (isPartial(key) === wanted) yield key;
      };
    const store: ContentStore = { ...inner, list: select(false), listPartialWrites: select(true) };
    const result = await pruneStore(store, { olderThanMs: DAY_MS, prefix: '', dryRun: false, now: NOW });
    expect(result.removed).toEqual([]);
    expect(result.liveSessions).toEqual(['s1']);
  });
});

describe('pruneStore on a directory store', () => {
  /** A memory store acting as a directory: kind 'file', so the package's marker decides. */
  async function createDirectoryStore(
    entries: Record<string, { ageDays: number; text?: string }>,
  ): Promise<ContentStore> {
    return { ...(await createAgedStore(entries)), kind: 'file' };
  }

  it('refuses one without the marker at its top, naming it, and deletes nothing', async () => {
    const store = await createDirectoryStore({
      'docs/README.md': { ageDays: 400 },
      'tool-result-a.md': { ageDays: 400 },
      'docs/.agent-context-offload': { ageDays: 400 },
    });
    const error: unknown = await pruneStore(store, { olderThanMs: DAY_MS, prefix: '', dryRun: false, now: NOW }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UnsafePathError);
    expect((error as Error).message).toBe(
      'refusing to prune memory://default: it holds no .agent-context-offload file, so agent-context-offload did not create it and cannot tell its own files there ' +
        'from yours. If everything in it was written by agent-context-offload (a directory made by version 0.3.0 has no marker), create that file, empty, ' +
        'and prune again: memory://default/.agent-context-offload',
    );
    expect(await listKeys(store)).toEqual(['docs/.agent-context-offload', 'docs/README.md', 'tool-result-a.md']);
  });

  it('prunes one holding the marker, never the marker itself', async () => {
    const store = await createDirectoryStore({
      '.agent-context-offload': { ageDays: 400 },
      's1/toolu_1.md': { ageDays: 30 },
      'tool-result-a.md': { ageDays: 1 },
    });
    const result = await pruneStore(store, { olderThanMs: 7 * DAY_MS, prefix: '', dryRun: false, now: NOW });
    expect(result.removed.map((entry) => entry.key)).toEqual(['s1/toolu_1.md']);
    expect(await listKeys(store)).toEqual(['.agent-context-offload', 'tool-result-a.md']);
  });
});

describe('pruneStore and partial writes', () => {
  const HOUR_MS = 60 * 60 * 1000;

  /** A store whose keys starting with `.` are partial writes: listed by `listPartialWrites`, not by `list`. */
  async function createStoreWithPartialWrites(entries: Record<string, { ageDays: number }>): Promise<ContentStore> {
    const inner = await createAgedStore(entries);
    const isPartial = (key: string): boolean => key.split('/').at(-1)!.startsWith('.');
    const select = (wanted: boolean) =>
      async function* (prefix: string): AsyncIterable<string> {
        for await (const key of inner.list(prefix)) if (isPartial(key) === wanted) yield key;
      };
    return { ...inner, list: select(false), listPartialWrites: select(true) };
  }

  it('removes those older than the cutoff, under the prefix', async () => {
    const store = await createStoreWithPartialWrites({
      's1/.a.tmp': { ageDays: 30 },
      's1/.b.tmp': { ageDays: 1 },
      's2/.c.tmp': { ageDays: 30 },
    });
    const result = await pruneStore(store, { olderThanMs: 7 * DAY_MS, prefix: 's1/', dryRun: false, now: NOW });
    expect(result.removed.map((entry) => entry.key)).toEqual(['s1/.a.tmp']);
    expect(await listKeys(store)).toEqual([]);
    expect(await inner(store)).toEqual(['s1/.b.tmp', 's2/.c.tmp']);
  });

  it('keeps one younger than an hour, whatever the cutoff', async () => {
    const store = await createStoreWithPartialWrites({
      '.young.tmp': { ageDays: 0.5 / 24 },
      '.old.tmp': { ageDays: 2 / 24 },
    });
    const result = await pruneStore(store, { olderThanMs: 0, prefix: '', dryRun: false, now: NOW });
    expect(result.removed.map((entry) => entry.key)).toEqual(['.old.tmp']);
    expect(MIN_PARTIAL_WRITE_AGE_MS).toBe(HOUR_MS);
  });

  async function inner(store: ContentStore): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of store.listPartialWrites!('')) keys.push(key);
    return keys.sort();
  }
});

describe('pruneOffloaded', () => {
  it('prunes a store from the clock it is given', async () => {
    const store = await createAgedStore({ 'tool-result-a.md': { ageDays: 3 }, 'tool-result-b.md': { ageDays: 1 } });
    const result = await pruneOffloaded({ store, olderThanMs: 2 * DAY_MS, now: () => NOW });
    expect(result.removed.map((entry) => entry.key)).toEqual(['tool-result-a.md']);
    expect(result.dryRun).toBe(false);
  });

  it.each([
    [{ olderThanMs: 1 }, 'pass store or outputDir: where the offloaded content is'],
    [{ store: createMemoryStore(), outputDir: '/tmp/x', olderThanMs: 1 }, 'pass either store or outputDir, not both'],
    [{ store: createMemoryStore() }, 'olderThanMs is required: the age in milliseconds beyond which entries go'],
    [{ store: createMemoryStore(), olderThanMs: -1 }, 'olderThanMs must be a number >= 0, got -1'],
    [{ store: createMemoryStore(), olderThanMs: '7d' }, 'olderThanMs must be a number >= 0, got "7d"'],
    [
      { store: createMemoryStore(), olderThanMs: Number.POSITIVE_INFINITY },
      'olderThanMs must be a number >= 0, got Infinity',
    ],
    [
      { store: createMemoryStore(), olderThanMs: 1, prefix: '../' },
      'prefix must not have a "." or ".." segment, got ".."',
    ],
    [{ store: createMemoryStore(), olderThanMs: 1, dryRun: 'yes' }, 'dryRun must be a boolean, got "yes"'],
    [{ store: createMemoryStore(), olderThanMs: 1, now: () => 'today' }, 'now must return a valid Date, got "today"'],
    [{ store: { list: () => [] }, olderThanMs: 1 }, /^store must be a ContentStore/],
  ])('rejects bad options before listing anything: %#', async (options, message) => {
    await expect(pruneOffloaded(options as never)).rejects.toThrow(message);
  });
});

describe('the prune command helpers', () => {
  it.each([
    ['30s', 30_000],
    ['30m', 30 * 60_000],
    ['12h', 12 * 3_600_000],
    ['7d', 7 * DAY_MS],
    ['2w', 14 * DAY_MS],
    ['1.5d', 1.5 * DAY_MS],
    [' 0d ', 0],
  ])('parses the duration %j', (text, milliseconds) => {
    expect(parseDuration(text)).toBe(milliseconds);
  });

  it.each(['7', 'd', '7x', '-1d', '7 d', '7D', '1e3d', '', '7dd'])('rejects the duration %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('escapes control characters and bidirectional overrides', () => {
    expect(escapeForTerminal('a\u001b[31mb\u0007c\u009bd\u202ee\nf')).toBe(
      'a\\u001b[31mb\\u0007c\\u009bd\\u202ee\\u000af',
    );
    expect(escapeForTerminal('plain/é中😀')).toBe('plain/é中😀');
  });
});
