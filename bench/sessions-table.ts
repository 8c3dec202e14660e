/**
 * Prints the table of one session served by one manager against a new manager per request:
 * summarizer calls and requests whose prompt prefix changed, on the sample transcript the
 * package ships (four copies: 60 requests) in a 12,000-token window.
 *
 * Run: `npx tsx bench/sessions-table.ts [--window 12000] [--copies 4]`
 */
import { compareReplays, loadSampleTranscript } from './session-replay.js';

function readFlag(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index === -1 ? undefined : Number(process.argv[index + 1]);
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}

const window = readFlag('--window', 12_000);
const copies = readFlag('--copies', 4);
const messages = await loadSampleTranscript(copies);
console.log(
  `Sample transcript x${copies} (${messages.length} messages), ${window.toLocaleString('en-US')}-token window, extractive summaries, file store\n`,
);
console.log('| | summarizer calls | requests whose prompt prefix changed | replay time |');
console.log('| --- | --- | --- | --- |');
for (const figures of Object.values(await compareReplays(messages, window))) {
  console.log(
    `| ${figures.mode} | ${figures.summarizerCalls} | ${figures.prefixChanges} of ${figures.requests} | ${Math.round(figures.elapsedMs)} ms |`,
  );
}
