/**
 * The CLI's format fixtures are the typed samples of `tests/fixtures/cli/formats/samples.ts`
 * written out: each sample is typed with its SDK's own message type, so a fixture that drifts
 * from what the SDK accepts fails here (or in the type check).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLE_FILES } from '../../../fixtures/cli/formats/samples.js';

const FORMAT_FIXTURES = join(import.meta.dirname, '../../../fixtures/cli/formats');

describe('CLI format fixtures', () => {
  it.each(Object.entries(SAMPLE_FILES))('%s is its SDK-typed sample, written as JSON', (name, sample) => {
    expect(JSON.parse(readFileSync(join(FORMAT_FIXTURES, name), 'utf8'))).toEqual(sample);
  });
});
