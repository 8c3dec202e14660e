/**
 * The default {@link TokenCounter}: `gpt-tokenizer`'s o200k_base encoding, an exact BPE
 * counter for that vocabulary and the fastest one in JavaScript (see issue 3). It is not
 * Claude's tokenizer: pass the provider's figure through `lastUsage` when exactness matters.
 *
 * The encoding costs ~300 ms to load, so it is loaded on the first count, not on import
 * (DESIGN §8), through its CommonJS build: `require` is synchronous, so counting stays
 * synchronous.
 */
import { createRequire } from 'node:module';
import type { TokenCounter } from '../core/ports.js';

interface O200kEncoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

let encoding: O200kEncoding | undefined;

// Agent transcripts hold text such as `<|endoftext|>`; gpt-tokenizer rejects it by default.
// With no disallowed specials, it is counted as the plain text it is.
const NO_DISALLOWED_SPECIAL_TOKENS = new Set<string>();

function loadEncoding(): O200kEncoding {
  if (encoding === undefined) {
    const require = createRequire(import.meta.url);
    encoding = require('gpt-tokenizer/cjs/encoding/o200k_base') as O200kEncoding;
  }
  return encoding;
}

/** Whether the encoding has been loaded (by a first count). */
export function isTokenizerLoaded(): boolean {
  return encoding !== undefined;
}

/**
 * Counts tokens with o200k_base. Empty text is 0 without loading anything.
 */
export function countTextTokens(text: string): number {
  if (text === '') return 0;
  return loadEncoding().countTokens(text, { disallowedSpecial: NO_DISALLOWED_SPECIAL_TOKENS });
}

/** The package's default token counter (o200k_base via `gpt-tokenizer`, loaded on first use). */
export const defaultTokenCounter: TokenCounter = { count: countTextTokens };
