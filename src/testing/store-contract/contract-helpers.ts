/** What the store contract's case files share: the running case's context, limits and test data. */
import type { ContentStore } from '../../core/ports.js';
import { countUtf8Bytes } from '../../core/text/utf8.js';
import type { TestStoreCase, TestStoreOptions } from '../test-store-options.js';

/** What a case file is given: getters, since the store and its key prefix are made anew before each case. */
export interface StoreContractContext {
  /** The running case's store. */
  readonly store: () => ContentStore;
  /** The running case's fresh key prefix. */
  readonly root: () => string;
  /** A key under the running case's prefix. */
  readonly key: (...segments: string[]) => string;
  /** Registers a `describe` block unless the caller left it out with `skip`. */
  readonly group: (title: TestStoreCase, register: () => void) => void;
  /** Bytes of the large value. */
  readonly largeValueBytes: number;
  /** The caller's options. */
  readonly options: TestStoreOptions;
}

/** Time allowed for one case against a slow backend (the large value takes the longest). */
export const CASE_TIMEOUT_MS = 60_000;

/** Keys no store may accept, built on a case's `root`: each is refused with `UNSAFE_PATH` before any I/O. */
export function createUnsafeKeys(root: string): string[] {
  return [
    '../x',
    `${root}/../../x`,
    `${root}/../x`,
    `/${root}/x`,
    `${root}\\x`,
    `${root}//x`,
    `${root}/./x`,
    `${root}/`,
    '',
    `${root}/x\u0000`,
    `C:/${root}/x`,
    '..',
    '.',
  ];
}

/** A text with two-, three- and four-byte characters, combining marks and a ZWJ sequence. */
export const UNICODE_TEXT = '中文テキスト 한국어 — é (e\u0301) 😀 👩‍👩‍👧 𝔘𝔫𝔦 ﷺ Ω ä\u0308\n\ttabs, "quotes", \\backslash\\';

/** Returns the rejection of `run()`, failing the case when it resolves or throws synchronously. */
export async function rejectionOf(run: () => Promise<unknown>): Promise<unknown> {
  let pending: Promise<unknown>;
  try {
    pending = run();
  } catch (error) {
    throw new Error(`expected a rejected promise, but the call threw synchronously: ${String(error)}`, {
      cause: error,
    });
  }
  return await pending.then(
    (value) => {
      throw new Error(`expected a rejection, but the call resolved with ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

/** `bytes` of text: runs of ASCII, two-, three- and four-byte characters, so ranges cut all kinds. */
export function createLargeValue(bytes: number): string {
  const unit = `${'x'.repeat(57)}é中😀\n`; // 57 + 2 + 3 + 4 + 1 = 67 bytes
  const whole = unit.repeat(Math.floor(bytes / 67));
  return whole + 'y'.repeat(bytes - countUtf8Bytes(whole));
}

/** Delays by `ms`, so a rewrite would change a recorded time. */
export async function pause(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}
