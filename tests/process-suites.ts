/**
 * The suites `npm run test:processes` runs and `npm test` leaves out: each starts processes
 * (the built command line, workers racing on one store, the examples, a browser) or waits on a
 * real client's own timeouts, which together would take minutes of `npm test`.
 */
export const PROCESS_SUITES: readonly string[] = [
  // the built agent-context: exit codes, pipes, Ctrl-C, modules loaded, npx
  'tests/integration/cli/cli-process.test.ts',
  // the replay page in headless Chromium
  'tests/integration/cli/cli-replay-browser.test.ts',
  // the proxy's live page in headless Chromium
  'tests/integration/proxy/proxy-page-browser.test.ts',
  // the proxy command as a server process
  'tests/integration/proxy/proxy-cli.test.ts',
  // a 600 MB streamed line through the proxy (seconds, hundreds of MB of traffic)
  'tests/integration/proxy/proxy-huge-stream.test.ts',
  // managers in several processes on one file or Redis store
  'tests/integration/api/context-manager-processes.test.ts',
  // a recorded session through manager processes and proxy processes in turn and restarted: the same bytes
  'tests/integration/proxy/one-history-processes.test.ts',
  // three proxy processes answering reads themselves, on one Redis store, round-robin
  'tests/integration/proxy/proxy-pool.test.ts',
  // worker processes offloading into one Redis store
  'tests/integration/stores/redis-workers.test.ts',
  // every example run with tsx against the built package
  'tests/integration/package/examples.test.ts',
  // the Redis and S3 clients' own connect and socket timeouts (seconds each)
  'tests/integration/stores/silent-server.test.ts',
  // the Redis client giving up reconnecting on its own retry timers during an outage
  'tests/integration/stores/redis-outage.test.ts',
];
