import { describe, expect, it } from 'vitest';
import type { Hashing } from '../../../../../src/core/manage/records/fingerprint.js';
import { createRecordChain, type ReadRecord } from '../../../../../src/core/manage/records/record-chain.js';
import {
  createSessionKnowledge,
  type SessionKnowledge,
} from '../../../../../src/core/manage/records/session-knowledge.js';
import {
  RECORD_VERSION,
  type CompactRecord,
  type CountRecord,
  type RecordSpan,
  type SessionRecord,
} from '../../../../../src/core/manage/records/session-records.js';
import type { Message } from '../../../../../src/core/types.js';
import { sha256Hashing } from '../../../../../src/infrastructure/sha256-hashing.js';

/** sha256, counting the messages added to histories (the seed and single texts are one update each too). */
function createCountingHashing(): Hashing & { updates: number } {
  const counting = {
    updates: 0,
    create() {
      const wrap = (hash: ReturnType<Hashing['create']>): ReturnType<Hashing['create']> => ({
        update(text) {
          counting.updates += 1;
          hash.update(text);
        },
        copy: () => wrap(hash.copy()),
        digest: () => hash.digest(),
      });
      return wrap(sha256Hashing.create());
    },
  };
  return counting;
}

function buildHistory(count: number): Message[] {
  return Array.from({ length: count }, (_, index): Message => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `message ${index}`,
  }));
}

const calibration = { ratio: 1.1, samples: 3 };

/** A knowledge holding `records` (as the manager's own writes). */
function knowledgeWith(records: SessionRecord[]): SessionKnowledge {
  const knowledge = createSessionKnowledge();
  for (const record of records) knowledge.addRecord({ kind: record.kind, span: record.span, attempt: 0 }, record);
  return knowledge;
}

function countRecord(span: RecordSpan): CountRecord {
  return { version: RECORD_VERSION, kind: 'count', span, tokens: { tokenizer: 't', counts: [] }, calibration };
}

/** Reads records from `knowledge` alone (what the manager's own writes put there). */
function readFrom(knowledge: SessionKnowledge): ReadRecord {
  return (async (kind: 'compact' | 'count', span: RecordSpan) => {
    const [name] = knowledge.recordNames(kind, span);
    return name === undefined ? undefined : (knowledge.readRecord(name) ?? undefined);
  }) as ReadRecord;
}

const ignoreTokens = (): void => undefined;

describe('record chain: hashing only what changed', () => {
  it('hashes a history whose last message came back as a new object from the last kept state, and reads the same records', async () => {
    const history = buildHistory(200);
    const fresh = createRecordChain(sha256Hashing);
    const span: RecordSpan = { messages: 199, fingerprint: fresh.fingerprint(history, 199) };
    const knowledge = knowledgeWith([countRecord(span), countRecord({ messages: 300, fingerprint: 'none' })]);
    const hashing = createCountingHashing();
    const chain = createRecordChain(hashing);
    await chain.match(history, knowledge, readFrom(knowledge), ignoreTokens);
    const firstPass = hashing.updates;

    // the same content, the last message a new object (a moved prompt-cache marker comes back so)
    const again = [...history.slice(0, 199), { ...(history[199] as Message) }, ...buildHistory(2)];
    hashing.updates = 0;
    const found = await chain.match(again, knowledge, readFrom(knowledge), ignoreTokens);

    expect(firstPass).toBeGreaterThanOrEqual(200);
    expect(hashing.updates).toBeLessThanOrEqual(4);
    expect(found.applied.map((record) => record.span)).toEqual([span]);
    expect(found.calibration).toEqual(calibration);
  });

  it('gives the fingerprint a new chain gives, after resuming', async () => {
    const history = buildHistory(150);
    const knowledge = knowledgeWith([countRecord({ messages: 400, fingerprint: 'none' })]);
    const chain = createRecordChain(sha256Hashing);
    await chain.match(history, knowledge, readFrom(knowledge), ignoreTokens);
    const changed = [...history.slice(0, 140), { role: 'user', content: 'changed' } as Message, ...history.slice(141)];
    await chain.match(changed, knowledge, readFrom(knowledge), ignoreTokens);

    expect(chain.fingerprint(changed, 150)).toBe(createRecordChain(sha256Hashing).fingerprint(changed, 150));
    expect(chain.fingerprint(changed, 120)).toBe(createRecordChain(sha256Hashing).fingerprint(changed, 120));
  });

  it('applies a compaction remembered for the raw messages it replaced, and hashes only the new tail after it', async () => {
    const history = buildHistory(120);
    const summary: Message[] = [{ role: 'user', content: 'summary of the first 100 messages' }];
    const knowledge = knowledgeWith([countRecord({ messages: 500, fingerprint: 'none' })]);
    const hashing = createCountingHashing();
    const chain = createRecordChain(hashing);
    chain.remember(history.slice(0, 100), summary, calibration, knowledge);
    const output = [...summary, ...history.slice(100)];
    chain.remember(output, output, calibration, knowledge);

    // the raw history again, with a message added: a client that keeps its own history
    hashing.updates = 0;
    const found = await chain.match([...history, ...buildHistory(1)], knowledge, readFrom(knowledge), ignoreTokens);

    expect(found.replaced).toBe(100);
    expect(found.messages.slice(0, 21)).toEqual(output);
    expect(found.messages).toHaveLength(22);
    expect(hashing.updates).toBeLessThanOrEqual(2);
  });

  it('applies a compaction record at its span when it is met after resuming', async () => {
    const history = buildHistory(80);
    const replacement: Message[] = [{ role: 'user', content: 'summary' }];
    const base = createRecordChain(sha256Hashing);
    const compaction: CompactRecord = {
      version: RECORD_VERSION,
      kind: 'compact',
      span: { messages: 70, fingerprint: base.fingerprint(history, 70) },
      messages: replacement,
      calibration,
      archiveReference: null,
      summarizer: 'test',
    };
    const knowledge = knowledgeWith([compaction, countRecord({ messages: 500, fingerprint: 'none' })]);
    const chain = createRecordChain(sha256Hashing);
    // first met short of its span, then the history grows past it
    await chain.match(history.slice(0, 60), knowledge, readFrom(knowledge), ignoreTokens);
    const found = await chain.match(history, knowledge, readFrom(knowledge), ignoreTokens);

    expect(found.replaced).toBe(70);
    expect(found.messages).toEqual([...replacement, ...history.slice(70)]);
  });

  it('hashes a span once for its record s name and for remembering it', async () => {
    const history = buildHistory(50);
    const knowledge = knowledgeWith([]);
    const hashing = createCountingHashing();
    const chain = createRecordChain(hashing);
    chain.fingerprint(history, 50);
    const hashed = hashing.updates;
    chain.remember(history, history, calibration, knowledge);

    expect(hashed).toBe(51);
    expect(hashing.updates).toBe(hashed);
  });

  it('hashes a span again when a message of the same array changed in place since', () => {
    const history = buildHistory(50);
    const chain = createRecordChain(sha256Hashing);
    chain.fingerprint(history, 50);
    history[10] = { role: 'user', content: 'changed in place' };

    expect(chain.fingerprint(history, 50)).toBe(createRecordChain(sha256Hashing).fingerprint(history, 50));
  });
});

describe('record chain: fingerprints of many spans', () => {
  const lengths = [3, 17, 40, 64, 65, 99];

  it('gives, for each length, the fingerprint of that prefix', () => {
    const history = buildHistory(100);
    const prints = createRecordChain(sha256Hashing).fingerprints(history, lengths);

    for (const length of lengths)
      expect(prints.get(length)).toBe(createRecordChain(sha256Hashing).fingerprint(history, length));
  });

  it('hashes each message once for all the lengths', () => {
    const history = buildHistory(100);
    const hashing = createCountingHashing();
    createRecordChain(hashing).fingerprints(history, lengths);

    expect(hashing.updates).toBe(1 + 99);
  });

  it('hashes nothing again for the same messages in a new array', () => {
    const history = buildHistory(100);
    const hashing = createCountingHashing();
    const chain = createRecordChain(hashing);
    chain.fingerprints(history, lengths);
    const hashed = hashing.updates;
    chain.fingerprints([...history, { role: 'user', content: 'next' }], lengths);

    expect(hashing.updates).toBe(hashed);
  });

  it('hashes on from the last length for the same messages and more', () => {
    const history = buildHistory(100);
    const hashing = createCountingHashing();
    const chain = createRecordChain(hashing);
    chain.fingerprints(history, lengths);
    const hashed = hashing.updates;
    const prints = chain.fingerprints(history, [...lengths, 100]);

    expect(hashing.updates).toBe(hashed + 1);
    expect(prints.get(100)).toBe(createRecordChain(sha256Hashing).fingerprint(history, 100));
  });

  it('gives the fingerprints of the new messages after a message changed', () => {
    const history = buildHistory(100);
    const chain = createRecordChain(sha256Hashing);
    chain.fingerprints(history, lengths);
    const changed = history.slice();
    changed[20] = { role: 'user', content: 'offloaded since' };
    const prints = chain.fingerprints(changed, lengths);

    for (const length of lengths)
      expect(prints.get(length)).toBe(createRecordChain(sha256Hashing).fingerprint(changed, length));
  });
});
