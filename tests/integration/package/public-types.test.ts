/**
 * The published declarations (`dist/`, built by `npm test` before the suites run): every type
 * that an exported declaration names must itself be exported from the package root or one of
 * its subpaths, or users cannot write it down (publint, tsc and the per-entry API report do not
 * check this). Also checks that internals stay out of the root.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as packageRoot from '../../../src/index.js';
import type { ForeignBlock } from '../../../src/index.js';
import type { OpenAILlmClient } from '../../../src/openai.js';
import type { CreateLlmSummarizerOptions, TokenCounterEncoding } from '../../../src/summarize.js';
import * as messages from '../../../src/messages.js';
import * as node from '../../../src/node.js';
import packageJson from '../../../package.json' with { type: 'json' };

const distDir = fileURLToPath(new URL('../../../dist/', import.meta.url));
const rootDeclarations = `${distDir}index.d.ts`;
/** The declaration file of every entry point in package.json `exports`. */
const entryDeclarations = Object.values(packageJson.exports)
  .flatMap((target) => (typeof target === 'object' ? [target.types] : []))
  .map((types) => `${distDir}${types.replace('./dist/', '')}`);

/** The package's own types that exported declarations name but no entry point exports, with who names them. */
function findUnexportedTypes(): string[] {
  const program = ts.createProgram(entryDeclarations, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const resolve = (symbol: ts.Symbol): ts.Symbol =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const inPackage = (node: ts.Node): boolean => node.getSourceFile().fileName.startsWith(distDir);
  const exported = new Set<ts.Symbol>();
  for (const file of entryDeclarations) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (moduleSymbol === undefined) throw new Error(`cannot read ${file}`);
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) exported.add(resolve(symbol));
  }
  const visited = new Set<ts.Symbol>();
  const missing = new Set<string>();

  const visitNode = (node: ts.Node, owner: string): void => {
    let name: ts.Node | undefined;
    if (ts.isTypeReferenceNode(node)) name = node.typeName;
    else if (ts.isExpressionWithTypeArguments(node)) name = node.expression;
    else if (ts.isTypeQueryNode(node)) name = node.exprName;
    const target = name === undefined ? undefined : checker.getSymbolAtLocation(name);
    if (target !== undefined) {
      const symbol = resolve(target);
      const declaration = symbol.declarations?.[0];
      if (declaration !== undefined && inPackage(declaration) && !(symbol.flags & ts.SymbolFlags.TypeParameter)) {
        if (!exported.has(symbol)) missing.add(`${symbol.name} (named by ${owner})`);
        visitSymbol(symbol, owner);
      }
    }
    ts.forEachChild(node, (child) => visitNode(child, owner));
  };
  const visitSymbol = (symbol: ts.Symbol, owner: string): void => {
    if (visited.has(symbol)) return;
    visited.add(symbol);
    for (const declaration of symbol.declarations ?? []) if (inPackage(declaration)) visitNode(declaration, owner);
  };
  for (const symbol of exported) visitSymbol(symbol, symbol.name);
  return [...missing].sort();
}

describe('public types', () => {
  it('every type named by an exported declaration is exported from the package root or a subpath', () => {
    expect(existsSync(rootDeclarations), 'run `npm run build` first (npm test does)').toBe(true);
    expect(entryDeclarations.length).toBeGreaterThanOrEqual(8);
    expect(findUnexportedTypes()).toEqual([]);
  });

  // The size of each entry point is reviewed in api/*.api.md (npm run api:check fails on a change).
  it('keeps internals out of the package root', () => {
    const names = Object.keys(packageRoot);
    for (const internal of [
      'MIN_KEPT_BLOCK_CHARS',
      'MESSAGE_TOKEN_OVERHEAD',
      'BLOCK_TOKEN_OVERHEAD',
      'createAnthropicLlmClient',
      'NodeFileWriter',
    ]) {
      expect(names, internal).not.toContain(internal);
    }
  });

  it('leaves the Node file writer out of ./node: offloaded content is written through a store', () => {
    expect(Object.keys(node).sort()).toEqual(['NodeFileReader', 'createNodeFileReader', 'defaultTokenCounter']);
  });

  it('exports the names users write down: TokenCounterEncoding, the block guards and types, SummarizerFailedError', () => {
    expectTypeOf<CreateLlmSummarizerOptions['tokenCounterEncoding']>().toEqualTypeOf<
      TokenCounterEncoding | undefined
    >();
    expectTypeOf<ForeignBlock>().toEqualTypeOf<{ type: string }>();
    expectTypeOf<OpenAILlmClient['defaultModel']>().toEqualTypeOf<string | null>();
    for (const name of ['isTextBlock', 'isThinkingBlock', 'isToolResultBlock', 'isToolUseBlock', 'assertMessages']) {
      expect(typeof (messages as Record<string, unknown>)[name], name).toBe('function');
    }
    expect(new packageRoot.SummarizerFailedError('blank')).toMatchObject({
      name: 'SummarizerFailedError',
      code: 'SUMMARIZER_FAILED',
    });
  });
});
