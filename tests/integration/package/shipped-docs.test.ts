/**
 * The published declarations (`dist/`, built by `npm test` before the suites run) speak to
 * users: no `.d.ts` may cite a document that does not ship with the package (design notes,
 * specifications, issue numbers).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('../../../', import.meta.url));
const distDir = join(packageDir, 'dist');

/**
 * A reference to such a document: `DESIGN §8`, `spec 01 F-002`, `specs 01-03`, `(F-009)`,
 * `v1 F-006`, `UC-001`, `issue 4`, or a bare `§6` (outside the word boundaries: `§` is no word
 * character, so `\b§` would never match after a space).
 */
const REFERENCE = /\b(?:DESIGN|specs? 0\d|F-\d{3}|UC-\d{3}|issue \d+)\b|§\s?\d/i;

async function listDeclarationFiles(directory: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await listDeclarationFiles(path)));
    else if (entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files.sort();
}

describe('shipped declarations', () => {
  it('recognises every form of reference (the check is not vacuous)', () => {
    for (const text of [
      '(DESIGN §8)',
      'spec 01 F-002',
      'Spec 05’s prompt',
      'specs 01-03',
      '(F-009)',
      'v1 F-006',
      'UC-001',
      'see issue 4',
      'the chunked mode of §6',
    ]) {
      expect(text).toMatch(REFERENCE);
    }
    for (const text of [
      'designed for agents',
      'a special case',
      'http://localhost:11434/v1',
      'issues are welcome',
      'F-16 jets',
    ]) {
      expect(text).not.toMatch(REFERENCE);
    }
  });

  it('cite no document that does not ship with the package (file:line of each citation found)', async () => {
    expect(existsSync(distDir), 'dist/ is missing: run `npm run build` (npm test does it first)').toBe(true);
    const files = await listDeclarationFiles(distDir);
    expect(files.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const file of files) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (REFERENCE.test(line)) found.push(`${relative(packageDir, file)}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found, `spec or DESIGN references in shipped docs:\n${found.join('\n')}`).toEqual([]);
  });
});
