/**
 * Counts the spellings of the package's options: every name a user can write to set a knob,
 * in each vocabulary (the context manager's grouped paths and top-level keys, the flat options
 * of the functions the option table lists, the proxy handler's options, the CLI's flags, the
 * config file's `proxy` keys, environment variables), and how many distinct names they make in
 * all. Also lists the environment variables the library reads outside `src/cli`.
 *
 * Read from the source text, so the figures of two commits compare: `npx tsx scripts/count-option-spellings.ts`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** The keys of the object literal that follows `marker` (one level, nested groups as `group.key`). */
function objectKeys(text: string, marker: string): string[] {
  const start = text.indexOf(marker);
  if (start < 0) return [];
  const open = text.indexOf('{', start + marker.length);
  const keys: string[] = [];
  const prefix: string[] = [];
  let depth = 0;
  let index = open;
  for (; index < text.length; index += 1) {
    const char = text[index];
    if (char === '{') {
      depth += 1;
      continue;
    }
    if (char === '}') {
      depth -= 1;
      prefix.pop();
      if (depth === 0) break;
      continue;
    }
    const match = /^\s*['"]?([A-Za-z][\w-]*)['"]?\??\s*:\s*(\{)?/.exec(text.slice(index, index + 200));
    if (
      match !== null &&
      (text[index - 1] === '{' ||
        text[index - 1] === ',' ||
        text[index - 1] === ';' ||
        /\n/.test(text[index - 1] ?? ''))
    ) {
      const name = [...prefix, match[1]].join('.');
      if (match[2] === '{') {
        prefix.push(match[1] as string);
        index += match[0].length - 2;
      } else {
        keys.push(name);
        index += match[0].length - 1;
      }
    }
  }
  return keys;
}

const managerOptions = read('src/api/context-manager-options.ts');
const optionTable = read('src/core/options/option-table.ts');
// the mapping of grouped paths onto flat names: beside the option table, or (before) in the manager's options
const groupsMarker = optionTable.includes('OPTION_GROUPS = {') ? 'OPTION_GROUPS = {' : 'MANAGER_OPTION_GROUPS = {';
const groupsSource = optionTable.includes('OPTION_GROUPS = {') ? optionTable : managerOptions;
const groupsText = groupsSource.slice(groupsSource.indexOf(groupsMarker));
const groupEntries = [...groupsText.slice(0, groupsText.indexOf('\n}')).matchAll(/\b(\w+): '(\w+)'/g)];
const managerPaths = objectKeys(groupsSource, groupsMarker.slice(0, -1));
const managerTop = objectKeys(managerOptions, 'const TOP_LEVEL');
// the seeds' option interfaces: a flat name of the mapping counts only when a seed's function takes it
// (`offloadTiming`, `agedBudgetChars`, ... are the manager's own, spelt only in its groups)
const seedInterfaces = ['src/core/options/offload-options.ts', 'src/core/compact/compact-options.ts']
  .map(read)
  .join('\n');
const flatNames = new Set<string>([
  ...[...optionTable.matchAll(/^\s+option: '([\w.]+)'/gm)].map((match) => match[1] as string),
  ...groupEntries
    .map((match) => match[2] as string)
    .filter((name) => new RegExp(`^\\s+${name}\\??:`, 'm').test(seedInterfaces)),
]);
const proxyOptions = objectKeys(read('src/proxy/proxy-options.ts'), 'PROXY_OPTION_NAMES');
const cliFiles = filesUnder(join(root, 'src/cli'));
const flags = new Set<string>();
for (const file of cliFiles) {
  for (const match of readFileSync(file, 'utf8').matchAll(/^\s+'?([a-z][a-z-]*)'?: \{ type: '(?:string|boolean)'/gm))
    flags.add(`--${match[1]}`);
}
const configKeys = objectKeys(read('src/cli/proxy-config.ts'), 'export interface ProxyFileSettings').map(
  (key) => `proxy.${key}`,
);

/** Environment variables read in `files`: the option table's (when `withTable`), `env.NAME`, `env[NAME_ENV]` constants. */
function environmentVariables(files: readonly string[], withTable: boolean): Set<string> {
  const names = new Set<string>();
  if (withTable) for (const match of optionTable.matchAll(/^\s+env: '(\w+)'/gm)) names.add(match[1] as string);
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\/?\*|\/\/)/.test(line))
      .join('\n');
    for (const match of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(match[1] as string);
    for (const match of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)) names.add(match[1] as string);
    for (const match of text.matchAll(/const \w+_ENV = '([A-Z][A-Z0-9_]+)'/g)) names.add(match[1] as string);
  }
  return names;
}

const libraryFiles = filesUnder(join(root, 'src')).filter((file) => !file.includes('/src/cli/'));
/** The seeds' functions, which keep the variables their spec defines: offload, direct offload, compaction, counting. */
const SEED_FILES = ['src/api/offload.ts', 'src/api/direct-offload.ts', 'src/api/compact.ts', 'src/api/tokens.ts'];
const isSeed = (file: string): boolean => SEED_FILES.some((seed) => file.endsWith(seed));
// a module that hands `process.env` to a resolver reads every variable of the table, and the
// summarizer's credentials (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`) through the compaction it builds
const readsThroughResolver = (file: string): boolean =>
  /process\.env\b(?!\.)/.test(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\/?\*|\/\/)/.test(line))
      .join('\n'),
  );
function libraryVariables(files: readonly string[]): Set<string> {
  const names = environmentVariables(files, files.some(readsThroughResolver));
  if (files.some(readsThroughResolver)) for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']) names.add(name);
  return names;
}
const libraryEnv = libraryVariables(libraryFiles);
const outsideSeeds = libraryFiles.filter((file) => !isSeed(file));
const nonSeedEnv = libraryVariables(outsideSeeds);
const nonSeedReaders = outsideSeeds.filter(readsThroughResolver).map((file) => file.slice(root.length));
const cliEnv = environmentVariables(cliFiles, false);
for (const file of cliFiles)
  if (/OPTIONS\.\w+\.env|\.env\]|environmentVariableOf|applyEnvironment/.test(readFileSync(file, 'utf8')))
    for (const match of optionTable.matchAll(/^\s+env: '(\w+)'/gm)) cliEnv.add(match[1] as string);

const vocabularies: Record<string, readonly string[]> = {
  'manager grouped paths': managerPaths,
  'manager top-level keys': managerTop,
  "seeds' flat options": [...flatNames],
  'proxy handler options': proxyOptions,
  'CLI flags': [...flags],
  'config file proxy keys': configKeys,
  'environment variables': [...new Set([...libraryEnv, ...cliEnv])],
};
const all = new Set<string>();
for (const [name, spellings] of Object.entries(vocabularies)) {
  for (const spelling of spellings) all.add(spelling);
  console.log(`${name}: ${spellings.length}`);
}
console.log(`distinct spellings in all: ${all.size}`);
console.log(
  `environment variables the library reads (outside src/cli): ${libraryEnv.size} (${[...libraryEnv].sort().join(', ')})`,
);
console.log(
  `of them, read outside the seeds' functions (the manager, the proxy handler, the integrations): ${nonSeedEnv.size}${nonSeedReaders.length === 0 ? '' : ` (through ${nonSeedReaders.join(', ')})`}`,
);
if (process.argv.includes('--list'))
  for (const [name, spellings] of Object.entries(vocabularies))
    console.log(`\n${name}:\n  ${[...spellings].sort().join('\n  ')}`);
