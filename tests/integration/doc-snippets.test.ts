/**
 * Every TypeScript block of README.md and docs/*.md compiles as a reader pastes it, against the
 * built package (`dist/`, resolved by the package's own name and `exports`), under `strict`.
 * - A block may say what it leaves to the reader in leading comments, one per line:
 *   `// declare: const history: Message[]`. A type named there comes from the package's root,
 *   or else from a module the block imports, without an import in the block.
 * - A block of signatures (every line `name(parameters): Type`) is checked as declarations:
 *   each type it names must exist (the package's types need no import there).
 * All blocks go into one TypeScript program, so the check costs one type-check.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './cli-helpers.js';

/** One fenced TypeScript block of a document. */
interface Snippet {
  /** The document, relative to the repository (`docs/stores.md`). */
  doc: string;
  /** Line of the block's first code line in the document, 1-based. */
  line: number;
  /** The code as shown. */
  code: string;
}

const FENCE_OPEN = /^```(?:ts|typescript)\s*$/;
const DECLARE_COMMENT = /^\/\/ declare: (.+?);?\s*$/;
const SIGNATURE = /^[A-Za-z_$][\w$]*\(.*\)\s*:\s*\S/;
const PACKAGE = 'agent-context-offload';
const IMPORT_FROM = /\bfrom\s+'([^']+)'/g;

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

/** Where the blocks live for the compiler: inside the package, so its own name resolves through `exports`. */
const SNIPPET_DIR = join(REPOSITORY_ROOT, '.doc-snippets');

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

/** A compiled block: its file for the compiler, and how many lines precede the code there. */
interface CompiledSnippet extends Snippet {
  fileName: string;
  prefixLines: number;
}

/** The modules a block imports from, in order. */
function importedModules(code: string): string[] {
  return [...code.matchAll(IMPORT_FROM)].map((match) => match[1]!);
}

/** Whether every code line of a block is a signature (`name(parameters): Type`, maybe a trailing comment). */
function isSignatureBlock(code: string): boolean {
  const lines = code.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));
  return lines.length > 0 && lines.every((line) => SIGNATURE.test(line.trim()));
}

/** `import type` lines for the capitalized names in `text` that `code` does not import, each from the first of `modules` exporting it. */
function importNamedTypes(
  text: string,
  code: string,
  modules: readonly string[],
  exportsOf: ReadonlyMap<string, ReadonlySet<string>>,
): string[] {
  const byModule = new Map<string, string[]>();
  for (const name of new Set(text.match(/\b[A-Z][A-Za-z0-9]*\b/g) ?? [])) {
    if (new RegExp(`import[^;]*\\b${name}\\b[^;]*from`).test(code)) continue;
    const module = modules.find((candidate) => exportsOf.get(candidate)?.has(name) === true);
    if (module !== undefined) byModule.set(module, [...(byModule.get(module) ?? []), name]);
  }
  return [...byModule].map(([module, names]) => `import type { ${names.join(', ')} } from '${module}';`);
}

/**
 * The file the compiler sees for `snippet`: for a block of signatures, each line as a
 * `declare function`; for code, `declare` lines for what its comments leave to the reader, then
 * the code. Types named there are imported first; `export {}` makes every block a module.
 */
function buildSource(
  snippet: Snippet,
  exportsOf: ReadonlyMap<string, ReadonlySet<string>>,
): { text: string; prefixLines: number } {
  const modules = [PACKAGE, ...importedModules(snippet.code)];
  if (isSignatureBlock(snippet.code)) {
    const body = snippet.code
      .split('\n')
      .map((line) =>
        SIGNATURE.test(line.trim()) ? `declare function ${line.replace(/\s*\/\/.*$/, '').trim()};` : line,
      )
      .join('\n');
    const imports = importNamedTypes(snippet.code, '', [PACKAGE], exportsOf);
    return { text: `${[...imports, body].join('\n')}\nexport {};\n`, prefixLines: imports.length };
  }
  const declarations: string[] = [];
  for (const line of snippet.code.split('\n')) {
    const match = DECLARE_COMMENT.exec(line.trim());
    if (match === null) {
      if (line.trim() === '' || line.trim().startsWith('//')) continue;
      break;
    }
    declarations.push(`declare ${match[1]!};`);
  }
  const prefix = [...importNamedTypes(declarations.join('\n'), snippet.code, modules, exportsOf), ...declarations];
  return { text: `${[...prefix, snippet.code].join('\n')}\nexport {};\n`, prefixLines: prefix.length };
}

/** The names each of `modules` exports (types and values), read through the compiler. */
function readModuleExports(host: ts.CompilerHost, modules: readonly string[]): Map<string, Set<string>> {
  const probe = join(SNIPPET_DIR, 'exports-probe.ts');
  const text = modules.map((module, index) => `import * as module${index} from '${module}';`).join('\n');
  const program = ts.createProgram(
    [probe],
    COMPILER_OPTIONS,
    withVirtualFiles(host, new Map([[probe, `${text}\nexport {};\n`]])),
  );
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(probe)!;
  const exportsOf = new Map<string, Set<string>>();
  source.statements.filter(ts.isImportDeclaration).forEach((statement, index) => {
    const symbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    exportsOf.set(
      modules[index]!,
      new Set(symbol === undefined ? [] : checker.getExportsOfModule(symbol).map((exported) => exported.name)),
    );
  });
  return exportsOf;
}

function withVirtualFiles(host: ts.CompilerHost, files: ReadonlyMap<string, string>): ts.CompilerHost {
  return {
    ...host,
    fileExists: (fileName) => files.has(fileName) || host.fileExists(fileName),
    readFile: (fileName) => files.get(fileName) ?? host.readFile(fileName),
    getSourceFile: (fileName, languageVersion, onError, shouldCreate) => {
      const text = files.get(fileName);
      return text !== undefined
        ? ts.createSourceFile(fileName, text, languageVersion, true)
        : host.getSourceFile(fileName, languageVersion, onError, shouldCreate);
    },
  };
}

/** Each block's errors, as `doc:line: message`, by block; one program for all of them. */
function compileSnippets(snippets: readonly Snippet[]): Map<Snippet, string[]> {
  const host = ts.createCompilerHost(COMPILER_OPTIONS, true);
  const exportsOf = readModuleExports(host, [
    ...new Set([PACKAGE, ...snippets.flatMap((snippet) => importedModules(snippet.code))]),
  ]);
  const files = new Map<string, string>();
  const compiled: CompiledSnippet[] = snippets.map((snippet, index) => {
    const fileName = join(SNIPPET_DIR, `${snippet.doc.replace(/[^A-Za-z0-9]+/g, '-')}-${index}.ts`);
    const { text, prefixLines } = buildSource(snippet, exportsOf);
    files.set(fileName, text);
    return { ...snippet, fileName, prefixLines };
  });
  const program = ts.createProgram([...files.keys()], COMPILER_OPTIONS, withVirtualFiles(host, files));
  const errors = new Map<Snippet, string[]>(snippets.map((snippet) => [snippet, []]));
  for (const [index, snippet] of compiled.entries()) {
    const source = program.getSourceFile(snippet.fileName)!;
    for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const position = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
      const line = snippet.line + position - snippet.prefixLines;
      errors
        .get(snippets[index]!)!
        .push(`${snippet.doc}:${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    }
  }
  return errors;
}

const BROKEN = `import { createLangchainFormat } from 'agent-context-offload';\nconst count: number = 'many';`;
const DECLARED = `// declare: const history: Message[], model: LanguageModel\nimport { generateText } from 'ai';\nimport { countTokens } from 'agent-context-offload';\nconst total: number = countTokens(history);\nawait generateText({ model, prompt: 'hi' });`;
const SIGNATURES = `countTokens(messages: readonly Message[], options?: CountTokensOptions): number  // a comment\nshouldCompact(messages, options?: ShouldCompactOptions): NoSuchType`;

describe('TypeScript in README.md and docs/', () => {
  const documents = listDocuments();
  const snippets = documents.flatMap((doc) => extractSnippets(doc, readFileSync(join(REPOSITORY_ROOT, doc), 'utf8')));
  const broken: Snippet = { doc: 'self-check.md', line: 10, code: BROKEN };
  const declared: Snippet = { doc: 'self-check.md', line: 20, code: DECLARED };
  const signatures: Snippet = { doc: 'self-check.md', line: 30, code: SIGNATURES };
  let errors: Map<Snippet, string[]>;

  beforeAll(() => {
    expect(
      existsSync(join(REPOSITORY_ROOT, 'dist', 'index.d.ts')),
      'dist/ is missing: run `npm run build` (npm test does it first)',
    ).toBe(true);
    errors = compileSnippets([...snippets, broken, declared, signatures]);
  }, 120_000);

  it('finds the blocks (the check is not vacuous)', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(20);
    expect(new Set(snippets.map((snippet) => snippet.doc)).size).toBeGreaterThanOrEqual(8);
  });

  it('reports a broken block by document and line, and accepts what a block declares', () => {
    expect(errors.get(broken)).toEqual([
      `self-check.md:10: Module '"agent-context-offload"' has no exported member 'createLangchainFormat'.`,
      `self-check.md:11: Type 'string' is not assignable to type 'number'.`,
    ]);
    expect(errors.get(declared)).toEqual([]);
  });

  it('checks a block of signatures as declarations', () => {
    expect(errors.get(signatures)).toEqual([
      `self-check.md:31: Parameter 'messages' implicitly has an 'any' type.`,
      `self-check.md:31: Cannot find name 'NoSuchType'.`,
    ]);
  });

  it.each(documents.filter((doc) => snippets.some((snippet) => snippet.doc === doc)))(
    '%s: every block compiles as shown',
    (doc) => {
      const found = snippets.filter((snippet) => snippet.doc === doc).flatMap((snippet) => errors.get(snippet)!);
      expect(found, `${relative(REPOSITORY_ROOT, join(REPOSITORY_ROOT, doc))}:\n${found.join('\n')}`).toEqual([]);
    },
  );
});
