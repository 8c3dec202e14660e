/**
 * The default counter on the real `gpt-tokenizer` (o200k_base): loaded lazily, exact against
 * the library's own count, and tolerant of special-token text.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as packageRoot from '../../src/index.js';
import { countTextTokens, isTokenizerLoaded } from '../../src/infrastructure/tokenizer.js';

const require = createRequire(import.meta.url);

describe('default token counter (gpt-tokenizer o200k_base)', () => {
  it('is not loaded by importing the package, nor by counting empty text', () => {
    expect(typeof packageRoot.countTokens).toBe('function');
    expect(packageRoot.estimateTokens('')).toBe(0);
    expect(packageRoot.countTokens([])).toBe(0);
    expect(isTokenizerLoaded()).toBe(false);
  });

  it('loads on the first count', () => {
    expect(packageRoot.estimateTokens('hello world')).toBe(2);
    expect(isTokenizerLoaded()).toBe(true);
  });

  it("matches gpt-tokenizer's own count on code, JSON, prose, CJK and shell output", () => {
    const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens(text: string): number };
    const samples = [
      'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
      JSON.stringify({ path: 'src/a.ts', lines: [1, 2, 3], nested: { ok: true } }),
      'The quick brown fox jumps over the lazy dog. '.repeat(20),
      '上下文压缩：将历史消息替换为结构化摘要，并恢复最近读取的文件。',
      '$ ls -la\ntotal 8\ndrwxr-xr-x  2 root root 4096 Nov 21 23:45 .\n',
      '🙂 emoji and \u{1F680} rockets',
    ];
    for (const sample of samples) expect(countTextTokens(sample)).toBe(reference.countTokens(sample));
  });

  it('counts <|endoftext|> and other special-token strings as plain text, where the library default throws', () => {
    const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens(text: string): number };
    const text = 'log line <|endoftext|> and <|im_start|>user';
    expect(() => reference.countTokens(text)).toThrow();
    expect(countTextTokens(text)).toBeGreaterThan(10);
    expect(packageRoot.countTokens([{ role: 'user', content: text }])).toBe(countTextTokens(text) + packageRoot.MESSAGE_TOKEN_OVERHEAD);
  });
});
