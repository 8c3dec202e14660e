/**
 * Message formats: converting a ~1M-character history in each format to the canonical
 * shape and back, against `structuredClone` of the same history in the same run. Goal: <= 2x.
 *
 * Cold: every iteration converts new message objects (shallow copies made inside the measured
 * function, so memoization cannot help and the copying counts against the adapter). Warm: the
 * same history again, as an agent loop converts it on every turn.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { MessageFormat } from '../src/core/format.js';
import { createLangchainFormat, formats } from '../src/formats/index.js';
import { buildHistory } from './offload.bench.js';
import { measureMedians, type BenchRow, type BenchRunOptions } from './report.js';

export const title = 'Message formats';

/** The goal: a round trip through the canonical shape costs at most this many times a structuredClone. */
const GOAL_RATIO = 2;

/** A new object of the same class with the same own fields: what a framework hands over on the next turn. */
function copyShallow(message: unknown): unknown {
  const prototype = Object.getPrototypeOf(message) as object | null;
  return prototype === Object.prototype
    ? { ...(message as object) }
    : Object.assign(Object.create(prototype) as object, message);
}

function roundTrip(format: MessageFormat<unknown>, history: readonly unknown[]): number {
  return format.fromCanonical(format.toCanonical(history), history).length;
}

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const { messages: canonical } = buildHistory();
  const characters = JSON.stringify(canonical).length;
  // Each format's history is built from the same canonical one, as its own API would hold it.
  const langchainBuilder = createLangchainFormat({
    messageClasses: { AIMessage, HumanMessage, SystemMessage, ToolMessage },
  });
  const cases: Array<[string, MessageFormat<unknown>, unknown[]]> = [
    ['anthropic', formats.anthropic, canonical],
    ['openai-chat', formats.openaiChat, formats.openaiChat.fromCanonical(canonical)],
    ['openai-responses', formats.openaiResponses, formats.openaiResponses.fromCanonical(canonical)],
    ['openai-agents', formats.openaiAgents, formats.openaiAgents.fromCanonical(canonical)],
    ['ai-sdk', formats.aiSdk, formats.aiSdk.fromCanonical(canonical)],
    ['langchain', formats.langchain, langchainBuilder.fromCanonical(canonical)],
    ['gemini', formats.gemini, formats.gemini.fromCanonical(canonical)],
  ];

  const rows: BenchRow[] = [];
  for (const [name, format, history] of cases) {
    // Sanity first: the round trip gives back the caller's own objects.
    const back = format.fromCanonical(format.toCanonical(history), history);
    if (back.length !== history.length || back.some((message, index) => message !== history[index]))
      throw new Error(`${name}: the round trip did not give back the caller's objects`);
    const clone = `structuredClone (${name})`;
    const cold = `${name}: toCanonical + fromCanonical, new objects`;
    const warm = `${name}: toCanonical + fromCanonical, same objects (memoized)`;
    const medians = await measureMedians(
      {
        [clone]: () => structuredClone(history).length,
        [cold]: () => roundTrip(format, history.map(copyShallow)),
        [warm]: () => roundTrip(format, history),
      },
      options,
    );
    const baseline = { name: clone, medianMs: medians[clone]! };
    const extra = `${history.length} messages, ${(characters / 1e6).toFixed(2)}M chars`;
    for (const label of [cold, warm]) {
      rows.push({
        name: label,
        medianMs: medians[label]!,
        baseline,
        extra,
        goal: `<= ${GOAL_RATIO}x structuredClone`,
        met: medians[label]! <= GOAL_RATIO * baseline.medianMs,
      });
    }
  }
  return rows;
}
