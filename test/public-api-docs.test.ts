import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import ts from 'typescript';

/**
 * The public API is what the three entry points re-export. Every export there carries TSDoc: values
 * (functions, classes, consts) a description and an `@example`; types a description; the public
 * methods of exported classes a description. The check reads the declarations through the compiler,
 * so an export that a re-export renames or a new entry line adds is covered without listing it here.
 */

const root = path.resolve(__dirname, '..');
const entryPoints: ReadonlyArray<{ name: string; file: string }> = [
  { name: 'durable-agents', file: 'src/index.ts' },
  { name: 'durable-agents/worker', file: 'src/worker/index.ts' },
  { name: 'durable-agents/workflow', file: 'src/workflow-api/index.ts' },
];

interface Problem {
  entryPoint: string;
  name: string;
  file: string;
  missing: string;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = path.join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath).options;
}

/**
 * The TSDoc block of a declaration: the last `/** *\/` comment before it, as API Extractor reads it.
 * A file's opening comment is attached to its first declaration too, so taking every block would
 * let a module comment pass for the first export's documentation.
 */
function docBlock(declaration: ts.Declaration): ts.JSDoc | undefined {
  return ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1);
}

function docBlocks(symbol: ts.Symbol): ts.JSDoc[] {
  return (symbol.declarations ?? []).flatMap((declaration) => docBlock(declaration) ?? []);
}

function hasDescription(symbol: ts.Symbol): boolean {
  return docBlocks(symbol).some((block) => (ts.getTextOfJSDocComment(block.comment) ?? '').trim().length > 0);
}

/**
 * A class member's description as an editor shows it: its own, or else the one it inherits from the
 * class or interface it overrides or implements (the SDK's plugin hooks, for example).
 */
function hasMemberDescription(member: ts.Symbol, checker: ts.TypeChecker): boolean {
  return hasDescription(member) || ts.displayPartsToString(member.getDocumentationComment(checker)).trim().length > 0;
}

function hasExample(symbol: ts.Symbol): boolean {
  return docBlocks(symbol).some((block) =>
    (block.tags ?? []).some((tag) => tag.tagName.text === 'example' && (ts.getTextOfJSDocComment(tag.comment) ?? '').trim().length > 0),
  );
}

function declarationFile(symbol: ts.Symbol): string {
  const declaration = symbol.declarations?.[0];
  return declaration ? path.relative(root, declaration.getSourceFile().fileName) : '(no declaration)';
}

/** Methods and accessors a caller can reach on the class (own members, not private or protected). */
function publicMembers(classSymbol: ts.Symbol): ts.Symbol[] {
  const members: ts.Symbol[] = [];
  const collect = (table: ts.SymbolTable | undefined): void => {
    table?.forEach((member) => {
      const declaration = member.valueDeclaration ?? member.declarations?.[0];
      if (!declaration) return;
      const callable =
        ts.isMethodDeclaration(declaration) || ts.isGetAccessorDeclaration(declaration) || ts.isSetAccessorDeclaration(declaration);
      if (!callable) return;
      const modifiers = ts.getCombinedModifierFlags(declaration);
      if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return;
      if (ts.isPrivateIdentifier(declaration.name)) return;
      members.push(member);
    });
  };
  collect(classSymbol.members);
  collect(classSymbol.exports); // static methods
  return members;
}

function findUndocumentedExports(): { problems: Problem[]; checked: number } {
  const program = ts.createProgram({
    rootNames: entryPoints.map((entry) => path.join(root, entry.file)),
    options: { ...compilerOptions(), noEmit: true },
  });
  const checker = program.getTypeChecker();
  const problems: Problem[] = [];
  let checked = 0;

  for (const entry of entryPoints) {
    const sourceFile = program.getSourceFile(path.join(root, entry.file));
    if (!sourceFile) throw new Error(`${entry.file}: not part of the program`);
    const moduleSymbol = checker.getSymbolAtLocation(sourceFile);
    if (!moduleSymbol) throw new Error(`${entry.file}: has no module symbol (no exports?)`);

    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const name = exported.getName();
      const file = declarationFile(symbol);
      const report = (missing: string, member?: string): void => {
        problems.push({ entryPoint: entry.name, name: member ? `${name}.${member}` : name, file, missing });
      };
      checked += 1;

      const isValue = (symbol.flags & ts.SymbolFlags.Value) !== 0;
      if (!hasDescription(symbol)) report('description');
      if (isValue && !hasExample(symbol)) report('@example');

      if (symbol.flags & ts.SymbolFlags.Class) {
        for (const member of publicMembers(symbol)) {
          if (!hasMemberDescription(member, checker)) report('description', member.getName());
        }
      }
    }
  }
  return { problems, checked };
}

describe('public API docs', () => {
  let lines: string[] = [];
  let checked = 0;

  beforeAll(() => {
    const found = findUndocumentedExports();
    checked = found.checked;
    lines = found.problems.map((problem) => `${problem.entryPoint}: ${problem.name} (${problem.file}) lacks ${problem.missing}`);
  });

  it('gives every export of the three entry points TSDoc, with an @example on every value and a description on every public method', () => {
    expect(checked).toBeGreaterThan(50);
    expect(lines).toEqual([]);
  });
});
