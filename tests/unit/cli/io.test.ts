import { existsSync } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import type * as FileSystem from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CliError } from '../../../src/cli/errors.js';
import { writeOutput } from '../../../src/cli/io.js';

// Fault injection: `open` and `rename` pass through to the real ones
// unless a test makes one of them fail.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FileSystem>();
  return { ...actual, open: vi.fn(actual.open), rename: vi.fn(actual.rename) };
});

const actualFs = await vi.importActual<typeof FileSystem>('node:fs/promises');

let directory: { path: string };

beforeEach(async () => {
  // The real path: the system temp directory may be a symlink, and writes follow symlinks.
  directory = { path: await realpath(await mkdtemp(join(tmpdir(), 'aco-cli-io-'))) };
});
afterEach(async () => {
  vi.mocked(open).mockReset().mockImplementation(actualFs.open);
  vi.mocked(rename).mockReset().mockImplementation(actualFs.rename);
  await rm(directory.path, { recursive: true, force: true });
});

function osError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/** Makes the next `open` return a real handle whose `writeFile` writes `keptChars` chars, then fails with ENOSPC. */
function failNextWriteHalfWay(keptChars: number): { temporaryPaths: string[] } {
  const temporaryPaths: string[] = [];
  vi.mocked(open).mockImplementationOnce(async (...args: Parameters<typeof open>) => {
    const handle = await actualFs.open(...args);
    temporaryPaths.push(String(args[0]));
    return Object.assign(handle, {
      writeFile: async (data: string): Promise<void> => {
        await handle.write(data.slice(0, keptChars));
        throw osError('ENOSPC', 'no space left on device, write');
      },
    }) as FileHandle;
  });
  return { temporaryPaths };
}

async function captureError(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('writeOutput: atomic -o', () => {
  const history = `${JSON.stringify([{ role: 'user', content: 'new history' }], null, 2)}\n`;

  it('writes a new file, creating its directory, and leaves no temporary file', async () => {
    const path = join(directory.path, 'nested', 'out.json');
    await writeOutput(path, history);
    expect(await readFile(path, 'utf8')).toBe(history);
    expect(await readdir(dirname(path))).toEqual(['out.json']);
  });

  it('replaces an existing file through a temporary file in the same directory, then a rename', async () => {
    const path = join(directory.path, 'h.json');
    await writeFile(path, 'the input');
    await writeOutput(path, history);
    expect(await readFile(path, 'utf8')).toBe(history);
    const [temporaryPath] = vi.mocked(open).mock.calls.map(([opened]) => String(opened));
    expect(dirname(temporaryPath ?? '')).toBe(directory.path);
    expect(vi.mocked(open).mock.calls[0]?.[1]).toBe('wx');
    expect(vi.mocked(rename)).toHaveBeenCalledWith(temporaryPath, path);
    expect(await readdir(directory.path)).toEqual(['h.json']);
  });

  it.each([0o600, 0o660, 0o604])(
    'keeps the permissions of the file it replaces (%o), whatever the umask',
    async (mode) => {
      const path = join(directory.path, 'h.json');
      await writeFile(path, 'the input');
      await chmod(path, mode);
      await writeOutput(path, history);
      expect((await stat(path)).mode & 0o7777).toBe(mode);
    },
  );

  it('writes through a symlink to the file it points to, keeping the link', async () => {
    const real = join(directory.path, 'real.json');
    const link = join(directory.path, 'link.json');
    await writeFile(real, 'the input');
    await symlink(real, link);
    await writeOutput(link, history);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(real, 'utf8')).toBe(history);
  });

  it('leaves the input byte-identical and no temporary file when the write fails half-way', async () => {
    const path = join(directory.path, 'h.json');
    const original = Buffer.from('[{"role":"user","content":"the original, é and 😀"}]\n');
    await writeFile(path, original);
    const { temporaryPaths } = failNextWriteHalfWay(Math.floor(history.length / 2));

    const error = await captureError(writeOutput(path, history));

    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe(`cannot write ${path}: no space left on the device (ENOSPC)`);
    expect((error as CliError).exitCode).toBe(1);
    expect(((error as CliError).cause as { code?: string }).code).toBe('ENOSPC');
    expect(temporaryPaths).toHaveLength(1);
    expect(existsSync(temporaryPaths[0] ?? '')).toBe(false);
    expect((await readFile(path)).equals(original)).toBe(true);
    expect(await readdir(directory.path)).toEqual(['h.json']);
  });

  it('leaves the input untouched and no temporary file when the rename fails', async () => {
    const path = join(directory.path, 'h.json');
    await writeFile(path, 'the input');
    vi.mocked(rename).mockRejectedValueOnce(osError('EACCES', 'permission denied, rename'));

    const error = await captureError(writeOutput(path, history));

    expect((error as CliError).message).toBe(`cannot write ${path}: permission denied (EACCES)`);
    expect(await readFile(path, 'utf8')).toBe('the input');
    expect(await readdir(directory.path)).toEqual(['h.json']);
  });

  it('never writes into a file it did not create (exclusive create), and leaves that file alone', async () => {
    const path = join(directory.path, 'h.json');
    await writeFile(path, 'the input');
    const squatter = join(directory.path, '.h.json.squatter.tmp');
    await writeFile(squatter, 'not ours');
    vi.mocked(open).mockImplementationOnce(() => actualFs.open(squatter, 'wx'));

    const error = await captureError(writeOutput(path, history));

    expect((error as CliError).message).toMatch(new RegExp(`^cannot write ${path}: EEXIST`));
    expect(await readFile(squatter, 'utf8')).toBe('not ours');
    expect(await readFile(path, 'utf8')).toBe('the input');
  });

  it('refuses a directory as the target before making any temporary file', async () => {
    const path = join(directory.path, 'a-directory');
    await mkdir(path);
    const error = await captureError(writeOutput(path, history));
    expect((error as CliError).message).toBe(`cannot write ${path}: is a directory (EISDIR)`);
    expect(vi.mocked(open)).not.toHaveBeenCalled();
    expect(await readdir(directory.path)).toEqual(['a-directory']);
  });
});
