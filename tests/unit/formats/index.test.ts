/**
 * The format registry: `formats`, `resolveFormat` for the `format`
 * option, and `detectFormat`, which names the format of a history or refuses a mixed one.
 */
import { describe, expect, it } from 'vitest';
import { InvalidMessageError, InvalidOptionError } from '../../../src/core/errors.js';
import { detectFormat, formats, resolveFormat } from '../../../src/formats/index.js';
import {
  aiSdkHistory,
  aiSdkV6History,
  anthropicHistory,
  createLangchainHistory,
  geminiHistory,
  openaiAgentsHistory,
  openaiChatHistory,
  openaiResponsesHistory,
} from './sdk-samples.js';

describe('formats', () => {
  it('holds the seven built-in formats under their names', () => {
    expect(Object.fromEntries(Object.entries(formats).map(([key, format]) => [key, format.name]))).toEqual({
      anthropic: 'anthropic',
      openaiChat: 'openai-chat',
      openaiResponses: 'openai-responses',
      openaiAgents: 'openai-agents',
      aiSdk: 'ai-sdk',
      langchain: 'langchain',
      gemini: 'gemini',
    });
  });

  it('is frozen, and so is each format', () => {
    expect(Object.isFrozen(formats)).toBe(true);
    for (const format of Object.values(formats)) expect(Object.isFrozen(format)).toBe(true);
  });
});

describe('resolveFormat', () => {
  it('gives anthropic for undefined', () => {
    expect(resolveFormat(undefined)).toBe(formats.anthropic);
  });

  it('gives the built-in format for each name', () => {
    for (const format of Object.values(formats))
      expect(resolveFormat(format.name as Parameters<typeof resolveFormat>[0])).toBe(format);
  });

  it('gives back an adapter object as it is', () => {
    const own = { name: 'mine', detect: () => false, toCanonical: () => [], fromCanonical: () => [] };
    expect(resolveFormat(own)).toBe(own);
  });

  it('refuses an unknown name, naming the field, the names accepted and the value', () => {
    expect(() => resolveFormat('openai' as never, 'options.format')).toThrow(InvalidOptionError);
    expect(() => resolveFormat('openai' as never, 'options.format')).toThrow(
      'options.format must be one of "anthropic", "openai-chat", "openai-responses", "openai-agents", "ai-sdk", "langchain", "gemini" or a format adapter, got "openai"',
    );
  });

  it('refuses an object without the three functions, naming the missing one', () => {
    expect(() => resolveFormat({ name: 'x', toCanonical: () => [], fromCanonical: () => [] } as never)).toThrow(
      'format must be a format adapter with toCanonical, fromCanonical and detect functions, got an object whose detect is undefined',
    );
  });

  it('refuses a value that is neither a name nor an object', () => {
    expect(() => resolveFormat(42 as never)).toThrow(/^format must be one of .* got 42$/);
  });
});

describe('detectFormat', () => {
  it('names the format of each real history', () => {
    expect(detectFormat(anthropicHistory)).toBe(formats.anthropic);
    expect(detectFormat(openaiChatHistory)).toBe(formats.openaiChat);
    expect(detectFormat(openaiResponsesHistory)).toBe(formats.openaiResponses);
    expect(detectFormat(openaiAgentsHistory)).toBe(formats.openaiAgents);
    expect(detectFormat(geminiHistory)).toBe(formats.gemini);
    expect(detectFormat(aiSdkHistory)).toBe(formats.aiSdk);
    expect(detectFormat(aiSdkV6History)).toBe(formats.aiSdk);
    expect(detectFormat(createLangchainHistory())).toBe(formats.langchain);
  });

  it('takes a history of plain text turns, which every format reads alike, as anthropic', () => {
    expect(
      detectFormat([
        { role: 'system', content: 'x' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ]),
    ).toBe(formats.anthropic);
  });

  it('lets a later message decide between the formats the first ones allow', () => {
    expect(
      detectFormat([
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'c', content: 'x' },
      ]),
    ).toBe(formats.openaiChat);
    expect(
      detectFormat([
        { role: 'user', content: 'hi' },
        { type: 'function_call_output', call_id: 'c', output: 'x' },
      ]),
    ).toBe(formats.openaiResponses);
  });

  it('gives undefined for an empty history and for messages no format reads', () => {
    expect(detectFormat([])).toBeUndefined();
    expect(detectFormat([{ speaker: 'me', text: 'hi' }])).toBeUndefined();
    expect(detectFormat(['hi'])).toBeUndefined();
  });

  it('refuses a history mixing formats, naming the first message that breaks with the ones before it', () => {
    const mixed = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'f', output: { type: 'text', value: 'x' } }],
      },
    ];
    expect(() => detectFormat(mixed)).toThrow(InvalidMessageError);
    expect(() => detectFormat(mixed)).toThrow(
      'messages[1]: mixes message formats: this message is ai-sdk, the messages before it are openai-chat',
    );
  });
});
