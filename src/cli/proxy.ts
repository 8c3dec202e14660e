/**
 * `agent-context proxy [--port 8787] [--host 127.0.0.1] [--upstream URL] [--dir DIR] [--window N]
 * [--summarizer extractive|upstream] [--offload-timing as-they-age|on-arrival] [--work-dir DIR] [--store URL]
 * [--read-tool own-tools|proxy] [--auth-token TOKEN]`:
 * runs the context-managing proxy until
 * Ctrl-C. One line per managed request on stderr (never a body or a credential).
 */
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseNumberText } from '../core/options/env.js';
import { InvalidOptionError } from '../core/errors.js';
import { OPTIONS } from '../core/options/option-table.js';
import type { OffloadTiming } from '../api/context-manager.js';
import type { ContentStore } from '../core/ports.js';
import { createProxyHandler } from '../proxy/proxy-handler.js';
import type { UpgradeListener } from '../proxy/upgrade-forward.js';
import {
  checkAuthToken,
  DEFAULT_PROXY_DIR,
  parseUpstream,
  type ProxyReadTool,
  type ProxyRequestEvent,
  type ProxySummarizer,
} from '../proxy/proxy-options.js';
import type { ManagerCompactionOptions, ManagerOffloadOptions } from '../api/context-manager-options.js';
import { parseCommandArguments, readStringFlag, type CommandArguments } from './arguments.js';
import {
  applyEnvironment,
  type ManagerGroups,
  DEFAULT_CONFIG_FILE_NAME,
  loadProxyConfig,
  type ProxyConfigFile,
  type ProxyFileSettings,
} from './proxy-config.js';
import { CliError, UsageError } from './errors.js';
import { groupDigits } from '../core/text/figures.js';
import { toTerminalText } from './render/terminal-text.js';
import { readTokenCountFlag } from './replay/replay-flags.js';

export const PROXY_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  upstream: { type: 'string' },
  dir: { type: 'string' },
  window: { type: 'string' },
  summarizer: { type: 'string' },
  'offload-timing': { type: 'string' },
  'work-dir': { type: 'string' },
  store: { type: 'string' },
  'read-tool': { type: 'string' },
  config: { type: 'string' },
  'auth-token': { type: 'string' },
} as const;

/** The environment variable that gives the proxy's auth token when `--auth-token` does not. */
export const AUTH_TOKEN_ENV = 'AGENT_CONTEXT_TOKEN';

/** The key prefix of the session records a `--store` URL holds, unless the URL names one. */
const DEFAULT_RECORDS_PREFIX = 'agent-context';

/** A store of session records that the command made, and closes when it stops. */
interface RecordsStore {
  store: ContentStore;
  close(): Promise<void>;
}

/**
 * The store a `--store` URL names: `redis://host:port/db` (or `rediss://`), records under the
 * prefix `agent-context`; `s3://bucket/prefix` (region and credentials from the environment).
 */
async function openRecordsStore(url: string): Promise<RecordsStore> {
  if (/^rediss?:\/\//.test(url)) {
    const { createRedisStore } = await import('../stores/redis-store.js');
    const store = createRedisStore({ url, prefix: DEFAULT_RECORDS_PREFIX });
    return { store, close: () => store.close() };
  }
  const s3 = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (s3 !== null) {
    const { createS3Store } = await import('../stores/s3-store.js');
    const prefix = (s3[2] ?? '').replace(/\/+$/, '');
    const store = createS3Store({ bucket: s3[1] as string, prefix: prefix === '' ? DEFAULT_RECORDS_PREFIX : prefix });
    return { store, close: () => store.close() };
  }
  throw new UsageError(
    `--store must be a redis://, rediss:// or s3://bucket/prefix URL, got ${JSON.stringify(url)}`,
    'proxy',
  );
}

/** The port the proxy listens on unless `--port` says otherwise. */
export const DEFAULT_PROXY_PORT = 8787;

/** The address the proxy binds unless `--host` says otherwise: this machine only. */
export const LOOPBACK_HOST = '127.0.0.1';
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '::1']);

function readPort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PROXY_PORT;
  const port = /^\d{1,5}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(port >= 0 && port <= 65535))
    throw new UsageError(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(raw)}`, 'proxy');
  return port;
}

function readSummarizer(raw: string | undefined): ProxySummarizer {
  if (raw === undefined || raw === 'extractive' || raw === 'upstream') return raw ?? 'extractive';
  throw new UsageError(`--summarizer must be extractive or upstream, got ${JSON.stringify(raw)}`, 'proxy');
}

function readReadTool(raw: string | undefined): ProxyReadTool {
  if (raw === undefined || raw === 'own-tools' || raw === 'proxy') return raw ?? 'own-tools';
  throw new UsageError(`--read-tool must be own-tools or proxy, got ${JSON.stringify(raw)}`, 'proxy');
}

function readOffloadTiming(raw: string | undefined): OffloadTiming | undefined {
  if (raw === undefined || raw === 'as-they-age' || raw === 'on-arrival') return raw;
  throw new UsageError(`--offload-timing must be as-they-age or on-arrival, got ${JSON.stringify(raw)}`, 'proxy');
}

/**
 * The auth token from `--auth-token`, else from `AGENT_CONTEXT_TOKEN` (an empty variable is
 * none), else from the config file's `proxy.authToken`.
 */
function readAuthToken(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  fromConfig: string | undefined,
  configKey: string,
  command: string,
): string | undefined {
  const fromEnv = env[AUTH_TOKEN_ENV];
  const [source, value] =
    flag !== undefined
      ? ['--auth-token', flag]
      : fromEnv !== undefined && fromEnv !== ''
        ? [AUTH_TOKEN_ENV, fromEnv]
        : fromConfig !== undefined
          ? [configKey, fromConfig]
          : ['', undefined];
  try {
    return checkAuthToken(source, value);
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(error.message, command);
    throw error;
  }
}

/** `1536` -> `1.5 KB`, for request sizes. */
export function formatSize(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One line per managed request: the route, the session, what the manager did, the sizes. */
export function formatRequestLine(event: ProxyRequestEvent): string {
  const session = event.sessionId === undefined ? 'no session' : `session ${event.sessionId.slice(0, 17)}`;
  const done: string[] = [];
  let offloaded = 0;
  for (const action of event.actions) {
    if (action.type === 'direct-offload' || action.type === 'batch-offload') offloaded += action.toolCallIds.length;
    else if (action.type === 'compact')
      done.push(`compacted ${groupDigits(action.tokensBefore)} -> ${groupDigits(action.tokensAfter)} tokens`);
    else if (action.type === 'compact-skipped') done.push(`compaction skipped (${action.reason})`);
    else if (action.type === 'writes-deferred')
      done.push(`${action.toolCallIds.length} kept inline (the store refused writes)`);
  }
  if (offloaded > 0) done.unshift(`${offloaded} offloaded`);
  if (event.outcome === 'fail-open') done.push('manager failed: sent unchanged');
  if (event.outcome === 'over-window') done.push('still over the window');
  const sizes =
    event.bytesIn === event.bytesOut
      ? formatSize(event.bytesIn)
      : `${formatSize(event.bytesIn)} -> ${formatSize(event.bytesOut)}`;
  return `${event.route}  ${session}  ${event.messagesIn} messages  ${sizes}${done.length > 0 ? `  ${done.join(', ')}` : ''}`;
}

/**
 * How long an idle client connection stays open (65 s). Node's own 5 s closes a connection a
 * client is about to reuse (its pools keep sockets longer), which it sees as an occasional
 * `ECONNRESET`; 65 s outlasts the usual idle timeouts of clients and load balancers (60 s).
 */
export const PROXY_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** How long a client has to send a request's headers: longer than the keep-alive, as Node requires. */
export const PROXY_HEADERS_TIMEOUT_MS = 66_000;

/**
 * The proxy's HTTP server around `handler`, with its connection timeouts set; `upgrade` takes
 * its connection upgrades (WebSocket), whose connections `closeAllConnections` then closes too.
 */
export function createProxyServer(handler: RequestListener, upgrade?: UpgradeListener): Server {
  const server = createServer(handler);
  server.keepAliveTimeout = PROXY_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = PROXY_HEADERS_TIMEOUT_MS;
  if (upgrade !== undefined) {
    // an upgraded connection leaves the server's own tracking: kept here, so a stop does not wait for it
    const upgraded = new Set<Duplex>();
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
      upgrade(request, socket, head);
    });
    const closeHttpConnections = server.closeAllConnections.bind(server);
    server.closeAllConnections = () => {
      closeHttpConnections();
      for (const socket of upgraded) socket.destroy();
    };
  }
  return server;
}

/** A proxy setting of the config file, when there is one. */
function fromFile<T>(config: ProxyConfigFile | undefined, key: keyof ProxyFileSettings): T | undefined {
  return config?.proxy[key] as T | undefined;
}

/** The proxy's settings, from its flags, the environment and the config file, checked. */
export interface ProxySettings {
  port: number;
  host: string;
  upstream: string | undefined;
  dir: string;
  /** `undefined`: the default (200000). */
  window: number | undefined;
  summarizer: ProxySummarizer;
  workDir: string | undefined;
  storeUrl: string | undefined;
  /** Who opens references: the agent's own tools, or the proxy's read tool. */
  readTool: ProxyReadTool;
  /** The manager's groups: `--offload-timing` over the environment's variables over the config file's groups. */
  offload: ManagerOffloadOptions | undefined;
  compaction: ManagerCompactionOptions | undefined;
  /** The token every request must carry in `x-agent-context-token`, if any. */
  authToken: string | undefined;
  /** The config file read, if any. */
  configPath: string | undefined;
}

/**
 * Resolves the proxy's settings: a flag first, then the environment (`CONTEXT_TOKEN_LIMIT` and
 * the manager's variables), then the config file (`--config`, else `agent-context.json` in the
 * working directory), then the defaults.
 *
 * @throws {UsageError} naming the flag or the file's key.
 */
export async function resolveProxySettings(
  command: string,
  parsed: CommandArguments,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ProxySettings> {
  const config = await loadProxyConfig(readStringFlag(parsed, 'config'), process.cwd(), command);
  const fileName =
    config === undefined ? '' : `${readStringFlag(parsed, 'config') ?? DEFAULT_CONFIG_FILE_NAME}: proxy.`;
  const portFlag = readStringFlag(parsed, 'port');
  const port = portFlag === undefined ? (fromFile<number>(config, 'port') ?? DEFAULT_PROXY_PORT) : readPort(portFlag);
  const host = readStringFlag(parsed, 'host') ?? fromFile<string>(config, 'host') ?? LOOPBACK_HOST;
  const upstreamFlag = readStringFlag(parsed, 'upstream');
  const upstream = upstreamFlag ?? fromFile<string>(config, 'upstream');
  try {
    if (upstream !== undefined)
      parseUpstream(upstreamFlag === undefined ? `${fileName}upstream` : '--upstream', upstream);
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(error.message, command);
    throw error;
  }
  const windowVariable = env[OPTIONS.contextTokenLimit.env] ?? '';
  let windowFromEnvironment: number | undefined;
  try {
    if (windowVariable.trim() !== '')
      windowFromEnvironment = parseNumberText(
        OPTIONS.contextTokenLimit.env,
        windowVariable,
        OPTIONS.contextTokenLimit.rule,
      );
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(error.message, command);
    throw error;
  }
  const authToken = readAuthToken(
    readStringFlag(parsed, 'auth-token'),
    env,
    fromFile<string>(config, 'authToken'),
    `${fileName}authToken`,
    command,
  );
  let groups: ManagerGroups;
  try {
    groups = applyEnvironment({ offload: config?.offload, compaction: config?.compaction }, env);
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(error.message, command);
    throw error;
  }
  const offloadTiming = readOffloadTiming(readStringFlag(parsed, 'offload-timing'));
  return {
    port,
    host,
    authToken,
    upstream,
    dir: readStringFlag(parsed, 'dir') ?? fromFile<string>(config, 'dir') ?? DEFAULT_PROXY_DIR,
    window:
      readTokenCountFlag(parsed, 'window', command) ?? windowFromEnvironment ?? fromFile<number>(config, 'window'),
    summarizer: readSummarizer(readStringFlag(parsed, 'summarizer') ?? fromFile<string>(config, 'summarizer')),
    workDir: readStringFlag(parsed, 'work-dir') ?? fromFile<string>(config, 'workDir'),
    storeUrl: readStringFlag(parsed, 'store') ?? fromFile<string>(config, 'store'),
    readTool: readReadTool(readStringFlag(parsed, 'read-tool') ?? fromFile<string>(config, 'readTool')),
    offload: offloadTiming === undefined ? groups.offload : { ...groups.offload, timing: offloadTiming },
    compaction: groups.compaction,
    configPath: config?.path,
  };
}

/** A proxy server started by {@link startProxyServer}. */
export interface RunningProxy {
  /** `http://127.0.0.1:8787`: what base URLs point at. */
  origin: string;
  /** Stops the server (open connections too) and closes the session store. */
  close(): Promise<void>;
}

/** What a started proxy reports to: its request events and its warnings. */
export interface ProxyServerHooks {
  onRequest(event: ProxyRequestEvent): void;
  warn(message: string): void;
}

/**
 * Starts the proxy's server with resolved settings, on `settings.host` and `settings.port`.
 *
 * @throws {CliError} when it cannot listen there.
 */
export async function startProxyServer(settings: ProxySettings, hooks: ProxyServerHooks): Promise<RunningProxy> {
  const records = settings.storeUrl === undefined ? undefined : await openRecordsStore(settings.storeUrl);
  const handler = createProxyHandler({
    upstream: settings.upstream,
    dir: settings.dir,
    store: records?.store,
    readTool: settings.readTool,
    contextTokenLimit: settings.window,
    summarizer: settings.summarizer,
    workDir: settings.workDir,
    offload: settings.offload,
    compaction: settings.compaction,
    authToken: settings.authToken,
    logger: { warn: hooks.warn },
    onRequest: hooks.onRequest,
  });

  const server = createProxyServer((request, response) => void handler(request, response), handler.upgrade);
  const { host, port } = settings;
  try {
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', (error) =>
        reject(new CliError(`cannot listen on ${host}:${port}: ${error.message}`, undefined, { cause: error })),
      );
      server.listen(port, host, resolveListen);
    });
  } catch (error) {
    await records?.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  return {
    origin,
    async close() {
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        // streams still open would hold close() forever
        server.closeAllConnections();
      });
      await records?.close();
    },
  };
}

/** Runs `proxy` with its arguments; resolves when the server has closed after Ctrl-C (or SIGTERM). */
export async function runProxy(args: readonly string[]): Promise<void> {
  const parsed = parseCommandArguments('proxy', args, PROXY_FLAGS, 0);
  const settings = await resolveProxySettings('proxy', parsed, process.env);
  const { host, upstream: upstreamFlag, dir, storeUrl } = settings;
  if (!LOOPBACK_NAMES.has(host) && settings.authToken === undefined) {
    throw new UsageError(
      `--host ${host} lets other machines reach the proxy: give it a token first (--auth-token or ${AUTH_TOKEN_ENV}), which every request must then carry in the x-agent-context-token header`,
      'proxy',
    );
  }
  const proxy = await startProxyServer(settings, {
    warn: (message) => process.stderr.write(`${toTerminalText(message)}\n`),
    onRequest: (event) => process.stderr.write(`${toTerminalText(formatRequestLine(event))}\n`),
  });
  const origin = proxy.origin;
  if (!LOOPBACK_NAMES.has(host)) {
    process.stderr.write(
      `agent-context proxy: warning: listening on ${toTerminalText(host)}, not only this machine: whoever holds the token can send requests through it${settings.readTool === 'proxy' ? '' : ', and references name files on this machine (--read-tool proxy answers reads for agents on other machines)'}\n`,
    );
  }
  process.stdout.write(
    [
      `agent-context proxy listening on ${origin}`,
      `  upstream: ${upstreamFlag ?? 'api.anthropic.com for Anthropic requests, api.openai.com for OpenAI ones, generativelanguage.googleapis.com for Gemini ones'}`,
      settings.readTool === 'proxy' && storeUrl !== undefined
        ? `  offloaded content: ${toTerminalText(storeUrl.replace(/\/\/[^@/]*@/, '//'))} (read by the proxy's read_offloaded)`
        : `  offloaded content: ${toTerminalText(resolve(dir))}${settings.readTool === 'proxy' ? " (read by the proxy's read_offloaded)" : ''}`,
      ...(settings.configPath === undefined ? [] : [`  config file: ${toTerminalText(settings.configPath)}`]),
      ...(storeUrl === undefined
        ? []
        : [`  session records: ${toTerminalText(storeUrl.replace(/\/\/[^@/]*@/, '//'))}`]),
      `  Claude Code:  ANTHROPIC_BASE_URL=${origin} claude`,
      `  OpenAI SDKs:  OPENAI_BASE_URL=${origin}/v1`,
      `  Gemini CLI:   GOOGLE_GEMINI_BASE_URL=${origin} gemini`,
      `  live page:    ${origin}/_agent-context/${settings.authToken === undefined ? '' : '?token=<the token>'}`,
      ...(settings.authToken === undefined
        ? []
        : [
            '  every request needs the header x-agent-context-token: <the token>',
            '    (Claude Code: ANTHROPIC_CUSTOM_HEADERS="x-agent-context-token: <the token>")',
          ]),
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );

  await new Promise<void>((resolveStop) => {
    const stop = (): void => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      resolveStop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await proxy.close();
}
