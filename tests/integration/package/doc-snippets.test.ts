/**
 * Every TypeScript block of README.md and docs/*.md compiles exactly as a reader pastes it: each
 * block alone in its own file of a fresh project, the one `tsc --init` writes (`strict`,
 * `module: nodenext`, `"type": "module"`, every file a module), with this package installed as
 * npm would install it: its `package.json` and the built `dist/` (`npm test` builds first), so
 * `agent-context-offload/...` resolves through the package's `exports` to its `.d.ts` files.
 * Nothing is added to a block: whatever it uses, it imports or declares where the reader sees it.
 * The project is type-checked by one `tsc` run, as a reader runs it, so the check costs one type-check.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PACKAGE = 'agent-context-offload';
const FENCE_OPEN = /^```(?:ts|typescript)\s*$/;
const IMPORT_FROM = /\bfrom\s+'([^']+)'|\bimport\s+'([^']+)'/g;

/** One fenced TypeScript block of a document. */
interface Snippet {
  /** The document, relative to the repository (`docs/stores.md`). */
  doc: string;
  /** Line of the block's first code line in the document, 1-based. */
  line: number;
  /** The code as shown. */
  code: string;
}

/** The TypeScript blocks of a Markdown text. */
export function extractSnippets(doc: string, markdown: string): Snippet[] {
  const snippets: Snippet[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    if (!FENCE_OPEN.test(lines[index]!)) continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.startsWith('```')) end += 1;
    snippets.push({ doc, line: start + 1, code: lines.slice(start, end).join('\n') });
    index = end;
  }
  return snippets;
}

function listDocuments(): string[] {
  const docs = readdirSync(join(REPOSITORY_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** What `tsc --init` writes, less what only matters to emitting, plus Node's types. */
const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    target: 'esnext',
    types: ['node'],
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    strict: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noUncheckedSideEffectImports: true,
    moduleDetection: 'force',
    skipLibCheck: true,
    noEmit: true,
  },
};

/** The installed package a bare specifier names: `@scope/name` or `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * A fresh project in a temporary directory: this package installed as its published files
 * (`package.json`, `dist/`), and beside it the packages the blocks import (as a reader installs
 * `ai` or `@anthropic-ai/sdk` for the block they paste), linked from this repository's `node_modules`.
 */
function createProject(snippets: readonly Snippet[]): string {
  const project = mkdtempSync(join(tmpdir(), 'doc-snippets-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'reader', private: true, type: 'module' }));
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  const installed = join(project, 'node_modules', PACKAGE);
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(installed, 'package.json'), readFileSync(join(REPOSITORY_ROOT, 'package.json')));
  symlinkSync(join(REPOSITORY_ROOT, 'dist'), join(installed, 'dist'), 'dir');
  const imported = snippets.flatMap((snippet) =>
    [...snippet.code.matchAll(IMPORT_FROM)].map((match) => match[1] ?? match[2]!),
  );
  const others = new Set(
    [...imported, '@types/node']
      .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
      .map(packageName),
  );
  others.delete(PACKAGE);
  for (const name of others) {
    const source = join(REPOSITORY_ROOT, 'node_modules', name);
    if (!existsSync(source)) continue; // the compiler then reports the module missing, by block
    mkdirSync(dirname(join(project, 'node_modules', name)), { recursive: true });
    symlinkSync(source, join(project, 'node_modules', name), 'dir');
  }
  return project;
}

/** A block's file name in the project: its document and line. */
function fileNameOf(snippet: Snippet): string {
  return `${snippet.doc.replace(/[^A-Za-z0-9]+/g, '-')}-${snippet.line}.ts`;
}

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const DIAGNOSTIC = /^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/;

/** What `tsc` prints: its exit code and output. A child process, so this worker's event loop keeps turning. */
function runTsc(project: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSC, '-p', '.', '--pretty', 'false'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, output }));
  });
}

/**
 * Each block's errors as `doc:line: message`, from one `tsc --noEmit` of the project holding
 * them all; an error outside the blocks (the project itself) throws.
 */
async function compileSnippets(project: string, snippets: readonly Snippet[]): Promise<Map<Snippet, string[]>> {
  const byFile = new Map(snippets.map((snippet) => [fileNameOf(snippet), snippet]));
  for (const [fileName, snippet] of byFile) writeFileSync(join(project, fileName), snippet.code);
  const { status, output } = await runTsc(project);
  const errors = new Map<Snippet, string[]>(snippets.map((snippet) => [snippet, []]));
  let last: string[] | undefined;
  for (const line of output.split('\n')) {
    const match = DIAGNOSTIC.exec(line);
    if (match !== null) {
      const snippet = byFile.get(match[1]!);
      if (snippet === undefined) throw new Error(`tsc reports an error outside the blocks:\n${output}`);
      last = errors.get(snippet)!;
      last.push(`${snippet.doc}:${snippet.line + Number(match[2]) - 1}: ${match[3]!}`);
    } else if (line.startsWith('  ') && last !== undefined) {
      last[last.length - 1] += `\n${line.trim()}`;
    } else if (line.trim() !== '') {
      throw new Error(`tsc printed what is not an error of a block (exit ${String(status)}):\n${output}`);
    }
  }
  return errors;
}

// Blocks that must fail or pass for the check to mean anything.
const BROKEN = `import { createLangchainFormat } from 'agent-context-offload';\nconst count: number = 'many';`;
const UNDECLARED = `import { countTokens } from 'agent-context-offload';\nconst history: Message[] = [];\ncountTokens(history);`;
const SELF_CONTAINED = `import { countTokens, type Message } from 'agent-context-offload';\nconst history: Message[] = [];\nconst total: number = countTokens(history);`;
const NO_IMPORTS = `const total = 1;`;

describe('TypeScript in README.md and docs/', () => {
  const documents = listDocuments();
  const snippets = documents.flatMap((doc) => extractSnippets(doc, readFileSync(join(REPOSITORY_ROOT, doc), 'utf8')));
  const broken: Snippet = { doc: 'self-check.md', line: 10, code: BROKEN };
  const undeclared: Snippet = { doc: 'self-check.md', line: 20, code: UNDECLARED };
  const selfContained: Snippet = { doc: 'self-check.md', line: 30, code: SELF_CONTAINED };
  const firstScript: Snippet = { doc: 'self-check.md', line: 40, code: NO_IMPORTS };
  const secondScript: Snippet = { doc: 'self-check.md', line: 50, code: NO_IMPORTS };
  let project: string;
  let errors: Map<Snippet, string[]>;

  beforeAll(async () => {
    expect(
      existsSync(join(REPOSITORY_ROOT, 'dist', 'index.d.ts')),
      'dist/ is missing: run `npm run build` (npm test does it first)',
    ).toBe(true);
    project = createProject(snippets);
    errors = await compileSnippets(project, [
      ...snippets,
      broken,
      undeclared,
      selfContained,
      firstScript,
      secondScript,
    ]);
  });

  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
  });

  it('finds the blocks (the check is not vacuous)', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(20);
    expect(new Set(snippets.map((snippet) => snippet.doc)).size).toBeGreaterThanOrEqual(8);
  });

  it('reports a broken block by document and line', () => {
    expect(errors.get(broken)).toEqual([
      `self-check.md:10: Module '"agent-context-offload"' has no exported member 'createLangchainFormat'.`,
      `self-check.md:11: Type 'string' is not assignable to type 'number'.`,
    ]);
  });

  it('adds nothing to a block: a type it does not import is an error', () => {
    expect(errors.get(undeclared)).toEqual([`self-check.md:21: Cannot find name 'Message'.`]);
    expect(errors.get(selfContained)).toEqual([]);
  });

  it('keeps each block in its own scope', () => {
    expect(errors.get(firstScript)).toEqual([]);
    expect(errors.get(secondScript)).toEqual([]);
  });

  it.each(documents.filter((doc) => snippets.some((snippet) => snippet.doc === doc)))(
    '%s: every block compiles as shown',
    (doc) => {
      const found = snippets.filter((snippet) => snippet.doc === doc).flatMap((snippet) => errors.get(snippet)!);
      expect(found, found.join('\n')).toEqual([]);
    },
  );
});
