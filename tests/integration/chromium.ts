/**
 * Headless Chromium for the browser tests: the Debian package's binary, run once per call with
 * its own profile directory. Where it is missing, the suites using it skip and say why.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The Chromium binary `.ci/run` installs with apt when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether {@link CHROMIUM} is absent on this machine. */
export const chromiumMissing = !existsSync(CHROMIUM);

/** Runs headless Chromium with `args`, its profile in `userDataDir`; resolves when it exits. */
export function runChromium(
  args: readonly string[],
  userDataDir: string,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      CHROMIUM,
      ['--headless', '--disable-gpu', '--no-sandbox', `--user-data-dir=${userDataDir}`, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}
