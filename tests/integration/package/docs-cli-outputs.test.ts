/**
 * The command outputs the docs quote are what the build prints: each is run again here (with the
 * built CLI, as `npm run docs:outputs` runs it) and compared with its page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_OUTPUT_PAGES, CLI_OUTPUTS, findStaleCliOutputs, produceCliOutputs } from '../../../scripts/cli-outputs.js';
import { REPOSITORY_ROOT } from '../cli/cli-helpers.js';

describe.skipIf(process.platform === 'win32')('command outputs quoted in the docs', () => {
  let outputs: Map<string, string>;

  beforeAll(async () => {
    outputs = await produceCliOutputs();
  });

  it('runs every quoted command, twice alike', async () => {
    expect([...outputs.keys()].sort()).toEqual(CLI_OUTPUTS.map((output) => output.id).sort());
    expect(await produceCliOutputs()).toEqual(outputs);
  });

  it.each(CLI_OUTPUT_PAGES)('%s quotes what the build prints (else: npm run build && npm run docs:outputs)', (page) => {
    expect(findStaleCliOutputs(page, readFileSync(join(REPOSITORY_ROOT, page), 'utf8'), outputs)).toEqual([]);
  });
});
