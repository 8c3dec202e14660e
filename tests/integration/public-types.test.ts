/**
 * The published declarations (`dist/`, built by `npm test` before the suites run): every type
 * that an exported declaration names must itself be exported from the package root, or users
 * cannot write it down (publint and tsc do not check this). Also checks the names the review
 * added to the surface.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as packageRoot from '../../src/index.js';
import type { CreateLlmSummarizerOptions, ForeignBlock, OpenAILlmClient, TokenCounterEncoding } from '../../src/index.js';

const distDir = fileURLToPath(new URL('../../dist/', import.meta.url));
const rootDeclarations = `${distDir}index.d.ts`;

/** The package's own types that exported declarations name but the root does not export, with who names them. */
function findUnexportedTypes(): string[] {
  const program = ts.createProgram([rootDeclarations], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(rootDeclarations);
  const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) throw new Error(`cannot read ${rootDeclarations}`);
  const resolve = (symbol: ts.Symbol): ts.Symbol => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const inPackage = (node: ts.Node): boolean => node.getSourceFile().fileName.startsWith(distDir);
  const exported = new Set(checker.getExportsOfModule(moduleSymbol).map(resolve));
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
  it('every type named by an exported declaration is exported from the package root', () => {
    expect(existsSync(rootDeclarations), 'run `npm run build` first (npm test does)').toBe(true);
    expect(findUnexportedTypes()).toEqual([]);
  });

  it('exports the names added by the review: TokenCounterEncoding, the block guards and types, SummarizerFailedError', () => {
    expectTypeOf<CreateLlmSummarizerOptions['tokenCounterEncoding']>().toEqualTypeOf<TokenCounterEncoding | undefined>();
    expectTypeOf<ForeignBlock>().toEqualTypeOf<{ type: string }>();
    expectTypeOf<OpenAILlmClient['defaultModel']>().toEqualTypeOf<string | null>();
    for (const name of ['isTextBlock', 'isThinkingBlock', 'isToolResultBlock', 'isToolUseBlock', 'computeMinSummaryInputTokens']) {
      expect(typeof (packageRoot as Record<string, unknown>)[name], name).toBe('function');
    }
    expect(new packageRoot.SummarizerFailedError('blank')).toMatchObject({ name: 'SummarizerFailedError', code: 'SUMMARIZER_FAILED' });
  });
});
