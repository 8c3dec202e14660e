/**
 * A reference names one content forever: the manager's names carry a hash of the content
 * (`<id>-<hash>.md`), are written once, and are never taken by other content, whether the name
 * was freed (expiry, prune, a restarted store) or another conversation reuses the call id.
 */
import { describe, expect, it } from 'vitest';
import { buildContentName, parseContentName } from '../../../../../src/core/manage/offload/content-names.js';
import { createMemoryStore } from '../../../../../src/stores/memory-store.js';
import { createTestManager, directKey, resultContent, TASK, textOf, toolTurn } from '../manager-fixtures.js';

describe('content names', () => {
  it('are <stem>-<16 hex>.md for a direct offload and tool-result-<stem>-<16 hex>.md for a batch offload', () => {
    const hash = 'ab'.repeat(32);
    expect(buildContentName('direct', 'call_0', hash)).toBe(`call_0-${'ab'.repeat(8)}.md`);
    expect(buildContentName('batch', 'call_0', hash)).toBe(`tool-result-call_0-${'ab'.repeat(8)}.md`);
    expect(buildContentName('direct', '../../etc/passwd', hash)).toMatch(/^etcpasswd~[0-9a-z]{11}-a{1}b/);
  });

  it('read back as the stems they may stand for and their hash', () => {
    expect(parseContentName(`call_0-${'ab'.repeat(8)}.md`)).toEqual({ stems: ['call_0'], hash: 'ab'.repeat(8) });
    expect(parseContentName(`tool-result-call_0-${'ab'.repeat(8)}.md`)).toEqual({
      stems: ['tool-result-call_0', 'call_0'],
      hash: 'ab'.repeat(8),
    });
    expect(parseContentName('call_0.md')).toBeUndefined();
  });
});

describe('two conversations reusing call_0 in one session folder', () => {
  it("never meet: each reference reads its own conversation's output", async () => {
    const store = createMemoryStore();
    const first = await createTestManager({ store }).manager.prepare([
      TASK,
      ...toolTurn('call_0', textOf(3000, 'first')),
    ]);
    const second = await createTestManager({ store }).manager.prepare([
      TASK,
      ...toolTurn('call_0', textOf(3000, 'second')),
    ]);

    expect(resultContent(first.messages[2])).not.toBe(resultContent(second.messages[2]));
    expect(await store.get(directKey('call_0', textOf(3000, 'first')))).toBe(textOf(3000, 'first'));
    expect(await store.get(directKey('call_0', textOf(3000, 'second')))).toBe(textOf(3000, 'second'));
  });

  it('a name freed by prune is never taken by other content: the reference still names the first content or nothing', async () => {
    const store = createMemoryStore();
    const first = await createTestManager({ store }).manager.prepare([
      TASK,
      ...toolTurn('call_0', textOf(3000, 'first')),
    ]);
    await store.delete(directKey('call_0', textOf(3000, 'first')));
    await createTestManager({ store }).manager.prepare([TASK, ...toolTurn('call_0', textOf(3000, 'second'))]);

    const reference = resultContent(first.messages[2]) as string;
    const key = store.keyFor(reference.slice('[Tool result offloaded to file: '.length, -1));
    expect(key).toBe(directKey('call_0', textOf(3000, 'first')));
    expect(await store.get(key!)).toBeUndefined();
  });
});
