/**
 * The API report: one `api/<entry>.api.md` per entry point in package.json `exports`, written by
 * API Extractor from the built declarations in dist/ (run `tsc -p tsconfig.build.json` first).
 * A change to the public surface shows as a diff of these files, reviewed with the change.
 *
 *   tsx scripts/api-report.ts          rewrite the reports (npm run api:report)
 *   tsx scripts/api-report.ts --check  exit 1 when a report differs from dist/ (npm run api:check)
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packageJsonPath = join(root, 'package.json');
const packageJson = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as {
  exports: Record<string, string | { types?: string }>;
};
const check = process.argv.includes('--check');
const tempFolder = join(root, 'node_modules', '.cache', 'api-report');

/** `.` -> `index`, `./testing` -> `testing`: the report's file name for an export key. */
function nameReport(exportKey: string): string {
  return exportKey === '.' ? 'index' : exportKey.slice(2).replaceAll('/', '-');
}

const entries = Object.entries(packageJson.exports).flatMap(([key, target]) =>
  typeof target === 'object' && typeof target.types === 'string'
    ? [{ name: nameReport(key), types: join(root, target.types) }]
    : [],
);

const changed: string[] = [];
let failed = false;
if (!check) mkdirSync(join(root, 'api'), { recursive: true });
for (const entry of entries) {
  if (!existsSync(entry.types)) {
    console.error(`api-report: ${entry.types} is missing; build first (tsc -p tsconfig.build.json)`);
    process.exit(1);
  }
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: entry.types,
      // The declarations are already built; only the entry and what it imports are read.
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            lib: ['ES2022'],
            types: ['node'],
            skipLibCheck: true,
          },
          files: [entry.types],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.name,
        reportFolder: join(root, 'api'),
        reportTempFolder: tempFolder,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        // The report is about the shape of the surface; TSDoc style is left to review.
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        extractorMessageReporting: {
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // @langchain/protocol ships .ts sources beside its declarations; not ours to fix.
          'ae-wrong-input-file-type': { logLevel: ExtractorLogLevel.None },
          // Each entry is read alone: a type it names but another entry exports (the root's
          // `Message`, say) is not forgotten, and links may point across entries. That every
          // named type is exported somewhere is tests/integration/package/public-types.test.ts's job.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None },
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
        },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: packageJsonPath,
  });
  const result = Extractor.invoke(config, {
    localBuild: !check,
    messageCallback: (message) => {
      // Report differences are summed up below, one line per entry.
      if (
        message.messageId === 'console-api-report-changed' ||
        message.messageId === 'console-api-report-copied' ||
        message.messageId === 'console-api-report-missing'
      )
        message.handled = true;
      else if (message.logLevel === ExtractorLogLevel.Info || message.logLevel === ExtractorLogLevel.Verbose)
        message.handled = true;
    },
  });
  if (result.apiReportChanged) changed.push(entry.name);
  if (result.errorCount > 0) failed = true;
}
if (check && changed.length > 0) {
  console.error(`api-report: the public API differs from api/ for: ${changed.join(', ')}`);
  for (const name of changed) console.error(`  diff api/${name}.api.md ${join(tempFolder, `${name}.api.md`)}`);
  console.error('Review the change, then run `npm run api:report` and commit api/.');
  process.exit(1);
}
rmSync(tempFolder, { recursive: true, force: true });
if (!check && changed.length > 0)
  console.log(`api-report: rewrote api/${changed.map((name) => `${name}.api.md`).join(', api/')}`);
if (failed) process.exit(1);
console.log(`api-report: ${entries.length} entry points ${check ? 'match api/' : 'written to api/'}`);
