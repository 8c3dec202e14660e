import { describe, expect, it } from 'vitest';
import { partitionMessages } from '../../../../src/core/compact/partition.js';
import type { Message } from '../../../../src/core/types.js';
import { deepFreeze } from '../../../fixtures/compact-fixtures.js';

const system: Message = { role: 'system', content: 'You are an agent.' };
const system2: Message = { role: 'system', content: 'Tools: read_file.' };
const user: Message = { role: 'user', content: 'Fix the bug.' };
const assistant: Message = { role: 'assistant', content: 'On it.' };

describe('partitionMessages', () => {
  it('puts the leading system messages in Head and everything after in Rest', () => {
    const result = partitionMessages([system, system2, user, assistant]);
    expect(result.head).toEqual([system, system2]);
    expect(result.rest).toEqual([user, assistant]);
    expect(result.head[0]).toBe(system);
    expect(result.rest[1]).toBe(assistant);
  });

  it('gives an empty Head when the list does not start with a system message', () => {
    expect(partitionMessages([user, system, assistant])).toEqual({ head: [], rest: [user, system, assistant] });
  });

  it('keeps a later system message in Rest (only the leading run is Head)', () => {
    expect(partitionMessages([system, user, system2]).rest).toEqual([user, system2]);
  });

  it('gives an empty Rest when every message is a system message', () => {
    expect(partitionMessages([system, system2])).toEqual({ head: [system, system2], rest: [] });
  });

  it('gives two empty arrays for an empty list', () => {
    expect(partitionMessages([])).toEqual({ head: [], rest: [] });
  });

  it('puts a single non-system message in Rest', () => {
    expect(partitionMessages([user])).toEqual({ head: [], rest: [user] });
  });

  it('returns new arrays and leaves a deep-frozen input as it was', () => {
    const input = deepFreeze([system, user]);
    const result = partitionMessages(input);
    expect(result.head).not.toBe(input);
    result.head.push(user);
    expect(input).toHaveLength(2);
  });
});
