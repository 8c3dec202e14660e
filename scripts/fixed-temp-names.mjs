/**
 * Preloaded (`node --import`) into the commands `npm run docs:outputs` runs: `mkdtemp` names its
 * folder `<prefix>XXXXXX` instead of six random characters, so the paths a command prints, and
 * the tokens those paths count for in a summary, are the same on every run and every machine.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const FOLDER_MODE = 0o700;
const nameOf = (prefix) => `${prefix}XXXXXX`;

fs.mkdtempSync = (prefix) => {
  fs.mkdirSync(nameOf(prefix), { mode: FOLDER_MODE });
  return nameOf(prefix);
};
fs.promises.mkdtemp = async (prefix) => {
  await fs.promises.mkdir(nameOf(prefix), { mode: FOLDER_MODE });
  return nameOf(prefix);
};
fs.mkdtemp = (prefix, ...rest) => {
  const callback = rest.at(-1);
  fs.mkdir(nameOf(prefix), { mode: FOLDER_MODE }, (error) => callback(error, error ? undefined : nameOf(prefix)));
};
syncBuiltinESMExports();
