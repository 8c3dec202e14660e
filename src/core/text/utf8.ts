/**
 * UTF-8 at the edges of a byte range. A range read (`ContentStore.get` with a range) may cut a
 * character in two; the bytes of such a cut character are left out, so a reader that moves on
 * by the bytes of the text it got (`countUtf8Bytes`) never shows U+FFFD where the value has a
 * real character.
 */

// ignoreBOM: a U+FEFF at the start of a range is content, not a marker to drop
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Bytes a character whose UTF-8 sequence starts with `lead` takes, or 0 for a continuation byte. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead < 0xc0) return 0;
  if (lead < 0xe0) return 2;
  if (lead < 0xf0) return 3;
  return 4;
}

/**
 * The text of `bytes`, a range of a UTF-8 value: continuation bytes at the start (the end of a
 * character cut by the range's start) and an incomplete sequence at the end are left out.
 */
export function decodeUtf8Range(bytes: Uint8Array): string {
  let start = 0;
  while (start < bytes.length && start < 3 && sequenceLength(bytes[start]!) === 0) start += 1;
  let end = bytes.length;
  // the last lead byte within 3 of the end: keep its sequence only when it is complete
  for (let index = end - 1; index >= Math.max(start, end - 3); index -= 1) {
    const length = sequenceLength(bytes[index]!);
    if (length === 0) continue;
    if (index + length > end) end = index;
    break;
  }
  return decoder.decode(bytes.subarray(start, end));
}

// eslint-disable-next-line no-control-regex -- ASCII is everything from NUL to DEL
const NON_ASCII = /[^\u0000-\u007f]/;
const encoder = new TextEncoder();
let scratch = new Uint8Array(0);

/**
 * Bytes of the UTF-8 encoding of `text` (a lone surrogate counts 3, as it is written as
 * U+FFFD): ASCII text (the common case) by its length; other text encoded into a reused
 * buffer, natively (about 3x the speed of a loop in JavaScript over 256 KB). The buffer has
 * room for 3 bytes per UTF-16 unit, the most any takes.
 */
export function countUtf8Bytes(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  return encoder.encodeInto(text, scratch).written;
}
