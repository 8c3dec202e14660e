/**
 * Histories the proxy suites send: a build whose long log a manager offloads, and prose that
 * makes a history pass a small window.
 */

/** An 800-line build log, about 30 KB. */
export const BUILD_LOG = Array.from(
  { length: 800 },
  (_, index) => `[build] step ${index}: compiled module-${index}`,
).join('\n');

/** A history whose last message holds a large tool result (`log`, the build log by default). */
export function buildHistory(log = BUILD_LOG): unknown[] {
  return [
    { role: 'user', content: 'Run the build.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'make' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: log }] },
  ];
}

/** A conversation of `turns` exchanges of prose, about 1,300 characters each. */
export function conversation(turns: number): { role: 'user' | 'assistant'; content: string }[] {
  return Array.from({ length: turns * 2 }, (_, index) => ({
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `Message ${index}: ${'the module under review keeps its state in a map and flushes it on exit; '.repeat(9)}`,
  }));
}

/** An Anthropic Messages body with the build agent's system prompt (`extra`: `max_tokens` and the like). */
export function buildAgentBody(messages: unknown[], extra: Record<string, unknown> = { max_tokens: 64 }): string {
  return JSON.stringify({ model: 'claude-test', system: 'You are a build agent.', ...extra, messages });
}
