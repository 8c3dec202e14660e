/**
 * In-memory ports and message builders for the compaction unit tests.
 */
import { resolveArchiveTarget, type ArchiveTarget } from '../../src/api/store-target.js';
import { archiveRest } from '../../src/core/compact/persist.js';
import type {
  ContentStore,
  FileReader,
  FileWriter,
  Logger,
  Summarizer,
  SummarizerOptions,
  TokenCounter,
} from '../../src/core/ports.js';
import type { Message } from '../../src/core/types.js';
import type { ResolvedCompactOptions } from '../../src/core/compact/compact-options.js';

/** One token per character: budgets and thresholds become easy arithmetic. */
export const charCounter: TokenCounter = { count: (text) => text.length };

/** Counts calls, one token per character. */
export function createCountingCounter(): TokenCounter & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    count(text) {
      calls.push(text);
      return text.length;
    },
  };
}

/** A logger that keeps what it is told. */
export function createRecordingLogger(): Logger & { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { warnings, infos, warn: (message) => warnings.push(message), info: (message) => infos.push(message) };
}

/** An in-memory file system behind both ports; `events` records every operation in order. */
export class MemoryFileSystem {
  readonly files = new Map<string, string>();
  /** Symlink path → target path (absolute), followed by `realpath`. */
  readonly links = new Map<string, string>();
  readonly unreadable = new Set<string>();
  readonly events: string[] = [];
  readonly directories = new Set<string>();
  failWrites = false;

  constructor(files: Record<string, string> = {}) {
    for (const [path, content] of Object.entries(files)) this.files.set(path, content);
  }

  private follow(path: string): string {
    for (const [link, target] of this.links) {
      if (path === link || path.startsWith(`${link}/`)) return target + path.slice(link.length);
    }
    return path;
  }

  readonly reader: FileReader & { realpath(path: string): Promise<string> } = {
    read: async (path) => {
      this.events.push(`read ${path}`);
      const real = this.follow(path);
      if (this.unreadable.has(real))
        throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
      const content = this.files.get(real);
      if (content === undefined)
        throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
      return content;
    },
    exists: async (path) => {
      this.events.push(`exists ${path}`);
      return this.files.has(this.follow(path));
    },
    realpath: async (path) => {
      this.events.push(`realpath ${path}`);
      return this.follow(path);
    },
  };

  /** A reader with only `read` and `exists` (no `realpath`). */
  get plainReader(): FileReader {
    return { read: this.reader.read, exists: this.reader.exists };
  }

  readonly writer: FileWriter & Required<Pick<FileWriter, 'createExclusive' | 'listDir'>> = {
    ensureDir: async (path) => {
      this.events.push(`ensureDir ${path}`);
      if (this.failWrites) throw new Error('EROFS: read-only file system');
      this.directories.add(path);
    },
    writeFile: async (path, content) => {
      this.events.push(`writeFile ${path}`);
      if (this.failWrites) throw new Error('EROFS: read-only file system');
      this.files.set(path, content);
    },
    createExclusive: async (path, content) => {
      this.events.push(`createExclusive ${path}`);
      if (this.failWrites) throw new Error('EROFS: read-only file system');
      const existing = this.files.get(path);
      if (existing !== undefined) return existing === content ? 'identical' : 'exists';
      this.files.set(path, content);
      return 'created';
    },
    listDir: async (path) => {
      this.events.push(`listDir ${path}`);
      const prefix = `${path}/`;
      return [...this.files.keys()]
        .filter((file) => file.startsWith(prefix) && !file.slice(prefix.length).includes('/'))
        .map((file) => file.slice(prefix.length));
    },
  };

  /** A writer with only `ensureDir` and `writeFile`. */
  get plainWriter(): FileWriter {
    const { ensureDir, writeFile } = this.writer;
    return ensureDir === undefined ? { writeFile } : { ensureDir, writeFile };
  }
}

/** A summarizer that answers from a script: a string, a thrown error, or a function. */
export function createScriptedSummarizer(
  script: Array<string | Error | ((messages: readonly Message[], options: SummarizerOptions) => Promise<string>)>,
  events?: string[],
): Summarizer & { calls: Array<{ messages: readonly Message[]; options: SummarizerOptions }> } {
  const calls: Array<{ messages: readonly Message[]; options: SummarizerOptions }> = [];
  return {
    calls,
    async summarize(messages, options) {
      events?.push('summarize');
      calls.push({ messages, options });
      const step = script[Math.min(calls.length - 1, script.length - 1)];
      if (step === undefined) throw new Error('script is empty');
      if (step instanceof Error) throw step;
      if (typeof step === 'function') return step(messages, options);
      return step;
    },
  };
}

/** The default resolved options for tests: workDir /work, archive at /work/.compact/default. */
export function createResolvedOptions(overrides: Partial<ResolvedCompactOptions> = {}): ResolvedCompactOptions {
  return {
    contextTokenLimit: 1000,
    compactThresholdRatio: 0.5,
    referenceReader: 'read-tool',
    force: false,
    lastUsage: undefined,
    tokenSafetyFactor: 1,
    summaryModel: 'test-model',
    summaryMaxWords: 1200,
    summaryInputMaxTokens: 100_000,
    maxRetries: 2,
    retryBaseDelayMs: 1000,
    outputDir: '.compact',
    archive: 'required',
    sessionId: 'default',
    maxRestoreFiles: 5,
    maxRestoreTokensPerFile: 5000,
    maxRestoreTokensTotal: 50_000,
    workDir: '/work',
    readToolNames: ['read_file'],
    pathField: 'path',
    resumeMessage: undefined,
    signal: undefined,
    ...overrides,
  };
}

let toolCallSequence = 0;

/** An assistant `read_file` call and the user message with its result. */
export function readFileTurn(
  path: string,
  content = `contents of ${path}`,
  toolName = 'read_file',
  pathField = 'path',
): Message[] {
  toolCallSequence += 1;
  const id = `toolu_${toolCallSequence}`;
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading ${path}.` },
        { type: 'tool_use', id, name: toolName, input: { [pathField]: path } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] },
  ];
}

/** Freezes a value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** An instant sleep that records the delays asked for. */
export function createRecordingSleep(): ((delayMs: number, signal?: AbortSignal) => Promise<void>) & {
  delays: number[];
} {
  const delays: number[] = [];
  const sleep = async (delayMs: number, signal?: AbortSignal): Promise<void> => {
    delays.push(delayMs);
    if (signal?.aborted) throw signal.reason;
  };
  return Object.assign(sleep, { delays });
}

/** The archive ports `compactMessages` builds from a `fileWriter` (rooted at `<workDir>/<outputDir>`), or from a store. */
export function archiveTarget(
  target: FileWriter | ContentStore,
  workDir = '/work',
  outputDir = '.compact',
): ArchiveTarget {
  return 'writeFile' in target
    ? resolveArchiveTarget({ fileWriter: target }, workDir, outputDir)
    : resolveArchiveTarget({ store: target }, workDir, outputDir);
}

/** Where {@link archiveThroughWriter} archives, and through what. */
export interface ArchiveThroughWriterOptions {
  workDir: string;
  outputDir: string;
  sessionId: string;
  fileWriter: FileWriter;
  logger: Logger;
  now: () => Date;
}

/** Archives Rest through `fileWriter` under `<workDir>/<outputDir>/<sessionId>/`, as compaction does: its reference, or `null` when it could not be written. */
export async function archiveThroughWriter(
  rest: readonly Message[],
  options: ArchiveThroughWriterOptions,
): Promise<string | null> {
  const { store } = archiveTarget(options.fileWriter, options.workDir, options.outputDir);
  return (await archiveRest(rest, { store, sessionId: options.sessionId, logger: options.logger, now: options.now }))
    .path;
}
