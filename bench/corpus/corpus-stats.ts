/**
 * What the corpus holds, transcript by transcript: harness, model requests, tool results and
 * tokens (the last request's, as the peers bench counts them), with totals and how many
 * transcripts outgrow each window the bench measures.
 *
 *     npx tsx bench/corpus/corpus-stats.ts
 */
import { countTokens } from '../../src/api/tokens.js';
import { findRequestTurns } from '../../src/cli/replay/request-turns.js';
import { loadCorpus } from './load-corpus.js';

const WINDOWS = [30_000, 100_000, 200_000];

const transcripts = await loadCorpus();
const rows = transcripts.map((transcript) => {
  const tokens =
    transcript.toolDefinitionTokens + transcript.messages.reduce((sum, message) => sum + countTokens([message]), 0);
  const results = transcript.messages.filter(
    (message) => Array.isArray(message.content) && message.content.some((block) => block.type === 'tool_result'),
  ).length;
  return { transcript, requests: findRequestTurns(transcript.messages).length, results, tokens };
});
const format = (value: number): string => value.toLocaleString('en-US');
console.log('| transcript | harness | requests | tool results | tokens |\n| --- | --- | --- | --- | --- |');
for (const { transcript, requests, results, tokens } of rows)
  console.log(`| ${transcript.name} | ${transcript.harness} | ${requests} | ${results} | ${format(tokens)} |`);
const sum = (pick: (row: (typeof rows)[number]) => number): string =>
  format(rows.reduce((total, row) => total + pick(row), 0));
const harnesses = new Set(transcripts.map((transcript) => transcript.harness));
console.log(
  `| **${rows.length} transcripts** | ${harnesses.size} harnesses | ${sum((row) => row.requests)} | ${sum((row) => row.results)} | ${sum((row) => row.tokens)} |`,
);
for (const window of WINDOWS)
  console.log(`over ${format(window)} tokens: ${rows.filter((row) => row.tokens > window).length} of ${rows.length}`);
