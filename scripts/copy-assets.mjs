/**
 * Build step after `tsc`: copies the JSON assets under src/ (the demo's sample session) to the
 * same place under dist/, since tsc emits only what is imported, and marks the command's entry
 * executable (tsc writes it 0644; `npx agent-context` in a clone runs it directly). No
 * dependencies, any platform.
 */
import { chmodSync, copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src');
const target = join(root, 'dist');

function copyJson(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      copyJson(path);
    } else if (entry.isFile() && entry.name.endsWith('.json')) {
      const destination = join(target, relative(source, path));
      mkdirSync(dirname(destination), { recursive: true });
      copyFileSync(path, destination);
    }
  }
}

copyJson(source);
// the bin: npm sets this on install, a local build must set it itself
chmodSync(join(target, 'cli/index.js'), 0o755);
