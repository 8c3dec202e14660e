// One worker of tests/integration/stores/redis-workers.test.ts, run as its own `node` process on
// the BUILT package (dist/; `npm test` builds first). It batch-offloads its own histories into
// one Redis store shared with the other workers, through `offloadToolResults(messages, { store })`.
//
// argv: <redis url> <store prefix> <worker number> <rounds> <results per round> <shared results per round>
// Protocol: prints `ready` once loaded and connected, waits for `go <epoch ms>` on stdin and
// starts at that time (so every worker starts together), then prints one JSON line per offloaded result
// `{ toolUseId, content, reference }` and exits 0.
import process from 'node:process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { offloadToolResults } from '../../../dist/index.js';
import { createRedisStore } from '../../../dist/stores/redis-store.js';

const [url, prefix, workerText, roundsText, resultsText, sharedText] = process.argv.slice(2);
const worker = Number(workerText);
const rounds = Number(roundsText);
const resultsPerRound = Number(resultsText);
const sharedPerRound = Number(sharedText);

/** A content this worker alone writes for one id: about 2-5 KB, with multi-byte characters. */
function ownContent(workerNumber, round, item) {
  const line = `worker ${workerNumber} round ${round} item ${item}: é中😀 `;
  return `${line}\n${'x'.repeat(1_000 + ((workerNumber * 997 + item * 131) % 3_000))}\n${line}`;
}

/** A content every worker writes for one id: the same text from each. */
function sharedContent(item) {
  return `shared by every worker and round, item ${item}\n${'s'.repeat(2_000 + item)}`;
}

function historyOf(round) {
  const messages = [{ role: 'user', content: [{ type: 'text', text: `worker ${worker}, round ${round}` }] }];
  const written = [];
  const add = (toolUseId, content) => {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: toolUseId, name: 'read_file', input: { path: `${toolUseId}.ts` } }],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content }] });
    written.push({ toolUseId, content });
  };
  // the same ids in every worker and every round, with other contents: each name is raced by
  // every worker, and each later round races for the next free suffix
  for (let item = 0; item < resultsPerRound; item++) add(`toolu_${item}`, ownContent(worker, round, item));
  // the same ids and the same content everywhere: one entry, reused by all
  for (let item = 0; item < sharedPerRound; item++) add(`toolu_same_${item}`, sharedContent(item));
  return { messages, written };
}

const REFERENCE = /^\[Content offloaded to: (.+)\]$/;

const store = createRedisStore({ url, prefix });
await store.stat('warm-up.md'); // connect before the start signal
process.stdout.write('ready\n');
const input = createInterface({ input: process.stdin });
let startAt = Date.now();
for await (const line of input) {
  const [word, time] = line.trim().split(' ');
  if (word !== 'go') continue;
  startAt = Number(time);
  break;
}
input.close();
// every worker starts at the same instant, so their writes to the same keys race
await sleep(Math.max(0, startAt - Date.now()));

const out = [];
for (let round = 0; round < rounds; round++) {
  const { messages, written } = historyOf(round);
  const result = await offloadToolResults(messages, { store, charThreshold: 100, ratioThreshold: 0 });
  if (result.offloadedCount !== written.length)
    throw new Error(`round ${round}: offloaded ${result.offloadedCount} of ${written.length}`);
  const references = [];
  for (const message of result.messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === 'tool_result')
        references.push({ toolUseId: block.tool_use_id, reference: REFERENCE.exec(block.content)?.[1] });
    }
  }
  written.forEach((entry, index) => {
    if (references[index]?.toolUseId !== entry.toolUseId)
      throw new Error(`round ${round}: result ${index} is not ${entry.toolUseId}`);
    out.push(
      JSON.stringify({ toolUseId: entry.toolUseId, content: entry.content, reference: references[index].reference }),
    );
  });
}
await store.close();
process.stdout.write(`${out.join('\n')}\n`);
