/**
 * The agent loop ai-sdk.test.ts runs on `ai` 7 and `ai` 6: what the scripted mock model
 * answers at each call, the tools it calls,
 * and readers for what it received. Version-neutral: the mock results are plain objects that fit
 * both `LanguageModelV3GenerateResult` and `LanguageModelV4GenerateResult`.
 *
 * The loop, one model call per step:
 * 1. an old conversation (plain text) -> the model calls `fetch_log`, which returns 50 KB;
 * 2. the model sees the reference instead and calls `read_offloaded` with it (3 lines);
 * 3. the model sees those lines and calls `list_files`, whose 2,400 characters (excluded from
 *    offload) push the history over the small `contextTokenLimit`;
 * 4. the history before that call is compacted: the model sees the summary, then the call and
 *    the listing (the exchange in flight), and calls `ping`;
 * 5. the model sees the same summary (not compacted again) and answers.
 */
import { expect, it } from 'vitest';
import { estimateTokens } from '../../../src/api/tokens.js';
import { createExtractiveSummarizer } from '../../../src/summarize.js';
import type { Message, Summarizer, SummarizerOptions } from '../../../src/index.js';

/** Lines of the large tool output: `0001 INFO ...`, 100 characters each with the newline. */
const LOG_LINE_COUNT = 500;
export const LOG_TEXT = Array.from({ length: LOG_LINE_COUNT }, (_, index) =>
  `${String(index + 1).padStart(4, '0')} INFO request handled for tenant-${index % 7} in ${10 + (index % 90)} ms`.padEnd(
    99,
    '.',
  ),
).join('\n');

/** One line from the middle of the log: found in a prompt (or its JSON) only if the whole log is there. */
export const LOG_MIDDLE_LINE = LOG_TEXT.split('\n')[LOG_LINE_COUNT / 2]!;

/** The 2,400-character output that pushes the history over the limit (its tool is excluded from offload). */
export const LISTING_TEXT = Array.from({ length: 60 }, (_, index) =>
  `src/module-${index}/file-${index}.ts`.padEnd(39, ' '),
).join('\n');

/** Distinct texts of the old conversation, to tell whether its messages reached a prompt (one long enough that compacting them frees room). */
export const OLD_TURNS = [
  'OLD-USER-1: please look at the request logs of the billing service and tell me what fails.',
  `OLD-ASSISTANT-1: I will fetch the logs first and then read the parts that matter. ${'The billing service logs each request with its tenant and its duration, so a slow tenant shows as long durations. '.repeat(22)}`,
  'OLD-USER-2: focus on the tenants that complained this morning, especially tenant-3.',
  'OLD-ASSISTANT-2: understood, tenant-3 first, then the others if time allows.',
  'OLD-USER-3: go ahead.',
] as const;

/** The manager settings of the scenario: small window, 50 KB offloaded, the listing kept inline. */
export const SCENARIO_LIMITS = {
  contextTokenLimit: 2_000,
  // offloaded on arrival: the scenario reads a result back and compacts, which needs it
  offload: { timing: 'on-arrival', directThreshold: 5_000, excludeTools: ['list_files'] },
} as const;

/** A real (extractive) summarizer that counts how often it ran. */
export function createCountingSummarizer(): Summarizer & { calls: number } {
  const extractive = createExtractiveSummarizer();
  const counting = {
    calls: 0,
    summarize(messages: readonly Message[], options: SummarizerOptions): Promise<string> {
      counting.calls += 1;
      return extractive.summarize(messages, options);
    },
  };
  return counting;
}

/**
 * The usage the mock reports. By default no input figure, so the manager's estimate is not
 * calibrated by made-up numbers; a test of the usage path passes one.
 */
function mockUsage(inputTokens: number | undefined) {
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  };
}

function toolCall(
  toolCallId: string,
  toolName: string,
  input: Record<string, unknown>,
  inputTokens: number | undefined,
) {
  return {
    content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls' as const, raw: undefined },
    usage: mockUsage(inputTokens),
    warnings: [],
  };
}

function text(value: string, inputTokens: number | undefined) {
  return {
    content: [{ type: 'text' as const, text: value }],
    finishReason: { unified: 'stop' as const, raw: undefined },
    usage: mockUsage(inputTokens),
    warnings: [],
  };
}

/** A provider-like prompt size: the local estimate of the prompt's JSON (a little over its real tokens). */
export function estimatePromptTokens(prompt: unknown): number {
  return estimateTokens(JSON.stringify(prompt));
}

/** A prompt part as the provider sees it. */
interface PromptPart {
  type: string;
  text?: string;
  toolName?: string;
  toolCallId?: string;
  output?: { type: string; value?: unknown };
}

/** The messages of a provider prompt, read loosely. */
function promptMessages(prompt: unknown): Array<{ role: string; content: string | PromptPart[] }> {
  return prompt as Array<{ role: string; content: string | PromptPart[] }>;
}

/** The output value of the tool result answering `toolName` in a prompt, if there is one. */
export function toolResultValue(prompt: unknown, toolName: string): unknown {
  for (const message of promptMessages(prompt)) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolName === toolName) return part.output?.value;
    }
  }
  return undefined;
}

/** Every text part (and string content) of a prompt, in order. */
export function promptTexts(prompt: unknown): string[] {
  const texts: string[] = [];
  for (const message of promptMessages(prompt)) {
    if (typeof message.content === 'string') texts.push(message.content);
    else
      for (const part of message.content)
        if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
  }
  return texts;
}

/** An offload reference, in either of the package's two forms. */
export const REFERENCE = /^\[(Content offloaded to|Tool result offloaded to file): [^\]\n]+\]/;

/**
 * The scripted model: what it answers at call `index` (0-based), given the prompt it received.
 * At call 2 it reads the reference it was shown, as a real model would.
 */
export function scriptedResponse(index: number, prompt: unknown, inputTokens?: number) {
  switch (index) {
    case 0:
      return toolCall('call-fetch', 'fetch_log', {}, inputTokens);
    case 1: {
      const reference = toolResultValue(prompt, 'fetch_log');
      return toolCall(
        'call-read',
        'read_offloaded',
        { ref: typeof reference === 'string' ? reference : 'missing', offset: 1, limit: 3 },
        inputTokens,
      );
    }
    case 2:
      return toolCall('call-list', 'list_files', {}, inputTokens);
    case 3:
      return toolCall('call-ping', 'ping', {}, inputTokens);
    default:
      return text('tenant-3 requests are slow but none fails.', inputTokens);
  }
}

/** The old conversation as AI SDK messages (plain text, the same in ai 6 and 7). */
export function oldConversation(): Array<{ role: 'user' | 'assistant'; content: string }> {
  return OLD_TURNS.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content }));
}

/** What a wrapLanguageModel run of the scenario leaves for the shared assertions. */
export interface MiddlewareRun {
  /** The prompts the wrapped mock model received, in call order. */
  prompts(): unknown[];
  /** The loop's own history after the run (`responseMessages` in ai 7, `response.messages` in 6). */
  responseMessages(): unknown;
  summarizerCalls(): number;
}

/** The assertions on a wrapLanguageModel run, the same for every major of `ai`. */
export function itBehavesAsTheContextMiddleware(run: MiddlewareRun): void {
  it('offloads the large tool result in the prompt the provider receives', () => {
    expect(toolResultValue(run.prompts()[1], 'fetch_log')).toMatch(REFERENCE);
    expect(JSON.stringify(run.prompts()[1])).not.toContain(LOG_MIDDLE_LINE);
  });

  it('leaves the loop history as it was (stateless): the response messages keep the raw output', () => {
    expect(toolResultValue(run.responseMessages(), 'fetch_log')).toBe(LOG_TEXT);
  });

  it('lets the model read the reference back', () => {
    expect(toolResultValue(run.prompts()[2], 'read_offloaded')).toContain('0001 INFO');
  });

  it('compacts an over-limit prompt into the summary, in provider shape (text parts, not strings)', () => {
    const prompt = run.prompts()[3];
    expect(promptTexts(prompt).some((text) => text.startsWith('[Conversation compressed]'))).toBe(true);
    for (const turn of OLD_TURNS) expect(promptTexts(prompt)).not.toContain(turn);
    for (const message of promptMessages(prompt)) {
      if (message.role === 'user' || message.role === 'assistant') expect(Array.isArray(message.content)).toBe(true);
    }
  });

  it('recognises the messages of the previous call, so the next call keeps the summary without summarizing again', () => {
    const summaryAt = (index: number) =>
      promptTexts(run.prompts()[index]).find((text) => text.startsWith('[Conversation compressed]'));
    expect(summaryAt(3)).toBeDefined();
    expect(summaryAt(4)).toBe(summaryAt(3));
    for (const turn of OLD_TURNS) expect(promptTexts(run.prompts()[4])).not.toContain(turn);
    expect(run.summarizerCalls()).toBe(1);
  });
}
