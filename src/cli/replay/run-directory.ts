/**
 * Where `replay` and `eval` put what the context manager writes (offloaded tool results,
 * compaction archives): the `--out` directory, kept, or a new temporary directory, removed
 * when the command ends. Made only once the input has been checked, so that bad input leaves
 * nothing behind.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DIRECTORY_MODE } from '../../infrastructure/atomic-files.js';
import { CliError } from '../errors.js';
import { describeOsError } from '../io.js';

/** The store directory of one run. */
export interface RunDirectory {
  /** Absolute path. */
  path: string;
  /** Whether it outlives the command (`--out`). */
  kept: boolean;
  /** Removes a temporary directory; leaves a kept one alone. */
  release(): Promise<void>;
}

/**
 * Opens `out` (created when missing, mode 0700 like every folder it creates) or a new temporary
 * directory named after `command` (0700 too, as `mkdtemp` makes it).
 *
 * @throws {CliError} (exit 1) naming the directory and what the OS said.
 */
export async function openRunDirectory(out: string | undefined, command: string): Promise<RunDirectory> {
  if (out !== undefined) {
    const path = resolve(out);
    try {
      // what it will hold is a session's tool output: for the user alone, as the stores make theirs
      await mkdir(path, { recursive: true, mode: DIRECTORY_MODE });
    } catch (error) {
      throw new CliError(`cannot create --out ${out}: ${describeOsError(error)}`, undefined, { cause: error });
    }
    return { path, kept: true, release: async () => undefined };
  }
  let path: string;
  try {
    path = await mkdtemp(join(tmpdir(), `agent-context-${command}-`));
  } catch (error) {
    throw new CliError(`cannot create a temporary directory: ${describeOsError(error)}`, undefined, { cause: error });
  }
  return { path, kept: false, release: () => rm(path, { recursive: true, force: true }) };
}
