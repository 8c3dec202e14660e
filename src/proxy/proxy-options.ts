/**
 * Options of the proxy, their defaults, and the eager check of each one: a bad option throws
 * when the handler is created, never at a request.
 */
import { describeValue, InvalidOptionError } from '../core/errors.js';
import type { ContextAction, ContextStats } from '../core/manage/types.js';
import type { ManagerCompactionOptions, ManagerOffloadOptions } from '../api/context-manager-options.js';
import type { ContentStore, Logger } from '../core/ports.js';
import { assertDirectorySetting } from '../core/store/safe-path.js';
import type { ProxyProvider, ProxyRoutePath } from './routes.js';

/** Where the proxy sends what it does not manage and what it does, by provider, unless `upstream` is given. */
export const DEFAULT_UPSTREAMS: Readonly<Record<ProxyProvider, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

/** The directory of offloaded content, relative to the current directory. */
export const DEFAULT_PROXY_DIR = '.agent-context';

/** The largest request body the proxy reads (32 MiB); a larger one is answered 413. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** How many sessions the proxy keeps in memory (the least recently used are forgotten). */
export const DEFAULT_MAX_SESSIONS = 64;

/**
 * The request bytes whose histories the proxy keeps in memory across sessions (128 MiB): each of
 * its caches (last bodies, last histories, warm managers) holds at most the histories of this
 * many bytes of requests.
 */
export const DEFAULT_MAX_KEPT_BYTES = 128 * 1024 * 1024;

/**
 * Who opens a reference. `'own-tools'`: the agent, with its own tools (a reference is an
 * absolute path under `dir`, so the agent runs on the proxy's machine). `'proxy'`: the proxy adds
 * the read tool (`read_offloaded`) to each managed request's tools and answers the model's
 * calls to it itself, so the agent can run anywhere.
 */
export type ProxyReadTool = 'own-tools' | 'proxy';

/**
 * The most read rounds the proxy answers in one turn with `readTool: 'proxy'` (8): an answer
 * that still calls the read tool after them is answered with an error in the provider's shape.
 */
export const DEFAULT_MAX_READ_ROUNDS = 8;

/** Who writes the summary of a compaction. */
export type ProxySummarizer = 'extractive' | 'upstream';

/** What the proxy did with one managed request, for logs and tests. Bodies and credentials are never in it. */
export interface ProxyRequestEvent {
  /** The managed path. */
  route: ProxyRoutePath;
  /** The session of the request (named by the header, or derived). */
  sessionId: string | undefined;
  /**
   * `'managed'`: the history changed (offloads, a compaction); `'unchanged'`: sent as it came;
   * `'over-window'`: sent after the manager's steps (decisions taken before still applied), but
   * still over the window, since a compaction it needed did not happen (a store that refuses
   * writes, a failing summarizer; `actions` say why); `'fail-open'`: the context manager failed
   * and the original request was sent (see `error`).
   */
  outcome: 'managed' | 'unchanged' | 'over-window' | 'fail-open';
  /** What `prepare` did, in order (empty when it failed). */
  actions: readonly ContextAction[];
  /** History items received and sent. */
  messagesIn: number;
  messagesOut: number;
  /** Request body bytes received and sent. */
  bytesIn: number;
  bytesOut: number;
  /** The figures of `prepare` (absent when it failed): token estimates, the provider's figure it anchored on. */
  stats?: ContextStats | undefined;
  /** Why the manager failed (`'fail-open'` only). */
  error?: unknown;
}

/**
 * Options of {@link createProxyHandler}: the proxy's own settings, and the context manager's
 * as `createContextManager` takes them (`contextTokenLimit`, `workDir`, the groups `offload` and
 * `compaction`), checked once, when the handler is created. The handler reads no environment
 * variable: `agent-context proxy` reads them and passes their values.
 */
export interface ProxyHandlerOptions {
  /**
   * The base URL every request is sent on to (`https://api.anthropic.com`, a gateway, a local
   * server); its path is put before the request's (`https://host/api` + `/v1/messages`).
   * Without it a request goes to its own provider, named by its path or its headers, and a
   * request the proxy cannot attribute (a Gemini or Azure key, a bearer `sk-ant-` key without
   * `anthropic-version`) is refused with 400 rather than sent with its key to another provider.
   * @default by request: `https://api.openai.com` for the OpenAI routes and for a request with an `authorization` header but no `anthropic-version` one, else `https://api.anthropic.com`
   */
  upstream?: string | undefined;
  /**
   * The directory of the file store that holds offloaded content and compaction archives, one
   * folder per session. References name absolute paths under it, so the agent's own tools
   * (Claude Code's Read, a shell's `cat`) open them.
   * @default '.agent-context' (in the current directory)
   */
  dir?: string | undefined;
  /**
   * Where sessions' records go instead of the file store (a Redis or S3 store), so several proxy
   * processes, or one restarted, share sessions. Offloaded content stays in `dir`, unless
   * `readTool` is `'proxy'`: then the store holds the content too, so a pool of proxies on
   * several machines serves one session.
   * @default undefined (the file store holds everything)
   */
  store?: ContentStore | undefined;
  /**
   * Who opens a reference. `'own-tools'`: the agent, with its own tools (Claude Code's Read, a
   * shell's `cat`), so references are absolute paths under `dir`. `'proxy'`: the proxy adds the
   * read tool (`read_offloaded`) to each managed request's tools, answers the model's calls to
   * it itself (it reads, then asks the upstream again with the result, up to
   * {@link DEFAULT_MAX_READ_ROUNDS} rounds) and sends the client only answers without such
   * calls; references name content in the store, so the agent can run on any machine. A
   * request whose client already has a tool of that name is left to the client. Streamed
   * answers are held until they are complete (the proxy must know whether they call the tool),
   * up to `maxBodyBytes`: a larger answer goes to the client as it comes. The client sees the
   * final answer's own usage; the first round's is kept for the session's next request.
   * @default 'own-tools'
   */
  readTool?: ProxyReadTool | undefined;
  /**
   * The context window, in tokens, as `createContextManager` takes it. The handler reads no
   * environment variable (`agent-context proxy` reads `CONTEXT_TOKEN_LIMIT` and passes it).
   * @default 200000
   */
  contextTokenLimit?: number | undefined;
  /**
   * `'extractive'`: summaries are written offline, at no cost. `'upstream'`: the upstream
   * writes them, with the request's own model and credentials (for Anthropic, repeating the
   * request so its prompt cache serves the conversation).
   * @default 'extractive'
   */
  summarizer?: ProxySummarizer | undefined;
  /**
   * The project directory that compaction restores recently read files from. Without it, no
   * file is restored: a proxy never puts its own files into an agent's context.
   * @default undefined (none)
   */
  workDir?: string | undefined;
  /**
   * The largest request body read, in bytes; a larger one is answered 413 in the provider's
   * error shape. An integer >= 1.
   * @default 33554432 (32 MiB)
   */
  maxBodyBytes?: number | undefined;
  /**
   * Sessions whose last usage figure, warm context manager, last history and last request body
   * are kept in memory (a request that repeats its session's last body is parsed only where it
   * differs); past it the least recently used is forgotten (its next request is parsed whole and
   * reads the session's records from the store again). An integer >= 1.
   * @default 64
   */
  maxSessions?: number | undefined;
  /**
   * Bounds the same memory in bytes: each of what is kept per session (the last request bodies,
   * the last histories, the warm managers) holds what came in at most this many bytes of
   * request bodies in all, so a few sessions of 30 MB requests cannot fill the process; past it
   * the least recently used sessions are forgotten (their next request reads their records
   * from the store again and is prepared alike). The session of the request under way is kept
   * whatever its size. An integer >= 1.
   * @default 134217728 (128 MiB)
   */
  maxKeptBytes?: number | undefined;
  /**
   * Receives the proxy's warnings (a manager failure, an unreachable upstream). Bodies and
   * credentials never reach it.
   * @default console (warnings only)
   */
  logger?: Logger | undefined;
  /** Called after each managed request was prepared, before it is sent on. */
  onRequest?: ((event: ProxyRequestEvent) => void) | undefined;
  /**
   * The context manager's `offload` group, as `createContextManager` takes it (`timing`,
   * `directThreshold`, `excludeTools`, ...).
   * @default undefined (the manager's defaults)
   */
  offload?: ManagerOffloadOptions | undefined;
  /**
   * The context manager's `compaction` group, as `createContextManager` takes it
   * (`triggerRatio`, `summary`, `restore`, `archivePolicy`, ...). The summarizer stays the
   * proxy's (`summarizer`).
   * @default undefined (the manager's defaults)
   */
  compaction?: ManagerCompactionOptions | undefined;
  /**
   * A token every request must carry in the `x-agent-context-token` header: the proxy's own
   * routes and the forwarded ones alike; a request without it (or with another) is answered 401
   * in the provider's error shape. The header is never sent on. At least 16 characters, none of
   * them whitespace or control characters.
   * @default undefined (no token asked: keep the proxy on this machine)
   */
  authToken?: string | undefined;
}

/**
 * The flat spellings of the manager's options the handler took before it took the manager's
 * groups, and what to write instead: each is refused with that hint.
 */
const REMOVED_PROXY_OPTIONS: Readonly<Record<string, string>> = {
  threshold:
    'pass offload: { directThreshold } (a new result offloaded on arrival) or offload: { minAgedResultChars } (as results age)',
  offloadTiming: 'pass offload: { timing }',
  compactThresholdRatio: 'pass compaction: { triggerRatio }',
};

/** Every option of {@link ProxyHandlerOptions}: a key not listed here is refused. */
const PROXY_OPTION_NAMES: Readonly<Record<keyof ProxyHandlerOptions, true>> = {
  upstream: true,
  dir: true,
  store: true,
  readTool: true,
  contextTokenLimit: true,
  summarizer: true,
  workDir: true,
  maxBodyBytes: true,
  maxSessions: true,
  maxKeptBytes: true,
  logger: true,
  onRequest: true,
  offload: true,
  compaction: true,
  authToken: true,
};

function checkPositiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError(`${name} must be an integer >= 1, got ${describeValue(value)}`);
  }
  return value;
}

/** The shortest auth token taken: a short one is guessed by trying. */
const MIN_AUTH_TOKEN_CHARS = 16;

/**
 * An auth token: `undefined`, or a string of at least {@link MIN_AUTH_TOKEN_CHARS} visible
 * ASCII characters (a header carries it as it is).
 *
 * @throws {InvalidOptionError} naming `option`; the value is not quoted (it is a secret).
 */
export function checkAuthToken(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\x21-\x7e]+$/.test(value) || value.length < MIN_AUTH_TOKEN_CHARS) {
    throw new InvalidOptionError(
      `${option} must be at least ${MIN_AUTH_TOKEN_CHARS} visible ASCII characters (no spaces), got ${typeof value === 'string' ? `a string of ${value.length} characters` : describeValue(value)}`,
    );
  }
  return value;
}

/**
 * The upstream URL: `http:` or `https:`, without query, fragment or credentials.
 *
 * @throws {InvalidOptionError} naming `option` and quoting the value.
 */
export function parseUpstream(option: string, value: unknown): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new InvalidOptionError(
      `${option} must be an http:// or https:// URL without query, fragment or credentials, got ${describeValue(value)}`,
    );
  }
  return url;
}

/** The options, checked, with their defaults. */
export interface ResolvedProxyOptions {
  /** The one upstream everything goes to, when the options name one. */
  upstream: URL | undefined;
  upstreamFor(provider: ProxyProvider): URL;
  dir: string;
  summarizer: ProxySummarizer;
  readTool: ProxyReadTool;
  maxBodyBytes: number;
  maxSessions: number;
  maxKeptBytes: number;
  authToken: string | undefined;
}

/**
 * Checks the proxy's own options (the context manager checks the rest when it is created).
 *
 * @throws {InvalidOptionError} naming the option, or naming a key that is not an option.
 */
export function resolveProxyOptions(options: ProxyHandlerOptions): ResolvedProxyOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(`options must be an object, got ${describeValue(options)}`);
  }
  // a misspelt option (`uptream`) would otherwise be ignored and its default used without a word
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined && Object.hasOwn(REMOVED_PROXY_OPTIONS, key)) {
      throw new InvalidOptionError(
        `${key} is not an option of createProxyHandler any more: ${REMOVED_PROXY_OPTIONS[key] as string}`,
      );
    }
    if (value !== undefined && !Object.hasOwn(PROXY_OPTION_NAMES, key)) {
      throw new InvalidOptionError(
        `${key} is not an option of createProxyHandler: expected one of ${Object.keys(PROXY_OPTION_NAMES).join(', ')}`,
      );
    }
  }
  const upstream = options.upstream === undefined ? undefined : parseUpstream('upstream', options.upstream);
  const defaults = {
    anthropic: new URL(DEFAULT_UPSTREAMS.anthropic),
    openai: new URL(DEFAULT_UPSTREAMS.openai),
    gemini: new URL(DEFAULT_UPSTREAMS.gemini),
  };
  const summarizer = options.summarizer ?? 'extractive';
  if (summarizer !== 'extractive' && summarizer !== 'upstream') {
    throw new InvalidOptionError(`summarizer must be "extractive" or "upstream", got ${describeValue(summarizer)}`);
  }
  const readTool = options.readTool ?? 'own-tools';
  if (readTool !== 'own-tools' && readTool !== 'proxy') {
    throw new InvalidOptionError(`readTool must be "own-tools" or "proxy", got ${describeValue(readTool)}`);
  }
  if (options.onRequest !== undefined && typeof options.onRequest !== 'function') {
    throw new InvalidOptionError(`onRequest must be a function, got ${describeValue(options.onRequest)}`);
  }
  return {
    upstream,
    upstreamFor: (provider) => upstream ?? defaults[provider],
    dir: assertDirectorySetting('dir', options.dir ?? DEFAULT_PROXY_DIR),
    summarizer,
    readTool,
    maxBodyBytes: checkPositiveInteger('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    maxSessions: checkPositiveInteger('maxSessions', options.maxSessions, DEFAULT_MAX_SESSIONS),
    maxKeptBytes: checkPositiveInteger('maxKeptBytes', options.maxKeptBytes, DEFAULT_MAX_KEPT_BYTES),
    authToken: checkAuthToken('authToken', options.authToken),
  };
}
