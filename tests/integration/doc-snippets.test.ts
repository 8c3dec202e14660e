/**
 * Every TypeScript block of README.md and docs/*.md compiles exactly as a reader pastes it: each
 * block alone in its own file of a fresh project, the one `tsc --init` writes (`strict`,
 * `module: nodenext`, `"type": "module"`, every file a module), with this package installed as
 * npm would install it: its `package.json` and the built `dist/` (`npm test` builds first), so
 * `agent-context-offload/...` resolves through the package's `exports` to its `.d.ts` files.
 * Nothing is added to a block: whatever it uses, it imports or declares where the reader sees it.
 * The project compiles as one program, so the check costs one type-check.
 */
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
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
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

/** Each block's errors as `doc:line: message`, from one type-check of the project holding them all. */
function compileSnippets(project: string, snippets: readonly Snippet[]): Map<Snippet, string[]> {
  for (const snippet of snippets) writeFileSync(join(project, fileNameOf(snippet)), snippet.code);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(project, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  )!;
  expect(config.errors).toEqual([]);
  const program = ts.createProgram(config.fileNames, config.options);
  const errors = new Map<Snippet, string[]>();
  for (const snippet of snippets) {
    const source = program.getSourceFile(join(project, fileNameOf(snippet)))!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    errors.set(
      snippet,
      diagnostics.map((diagnostic) => {
        const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
        return `${snippet.doc}:${snippet.line + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      }),
    );
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

  beforeAll(() => {
    expect(
      existsSync(join(REPOSITORY_ROOT, 'dist', 'index.d.ts')),
      'dist/ is missing: run `npm run build` (npm test does it first)',
    ).toBe(true);
    project = createProject(snippets);
    errors = compileSnippets(project, [...snippets, broken, undeclared, selfContained, firstScript, secondScript]);
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
