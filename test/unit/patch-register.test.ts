// The patch register against the code and the replay corpus: every id registered, every id recorded on both sides, no marker outside the register.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import * as register from '../../src/workflows/versioning/patches';
import { BASELINE_LABEL, corpusFiles, parseCorpusPath, patchMarkersOf, readCorpusHistory } from '../support/history-corpus';
import { PASSES_PATCHED_CODE } from '../support/patch-passes';

const { PATCHES } = register;
const SANDBOX_FOLDERS = ['src/workflows', 'src/workflow-api'].map((folder) => path.resolve(__dirname, '..', '..', folder));

/** A `patched(…)` or `deprecatePatch(…)` call in workflow code, and what its argument is. */
interface PatchCall {
  where: string;
  call: 'patched' | 'deprecatePatch';
  /** The register constant it passes, or null (a literal or anything else: refused). */
  constant: string | null;
  argument: string;
}

function sandboxFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every patch call of a file, read with the TypeScript parser (comments and strings that mention `patched(` do not count); its constants imported from the register or from patch-ids.ts. */
function patchCallsOf(file: string, text = readFileSync(file, 'utf8')): PatchCall[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const fromRegister = new Set<string>();
  const calls: PatchCall[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /\/patch(es|-ids)$/.test(node.moduleSpecifier.text)) {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) fromRegister.add(element.name.text);
    }
    if (ts.isCallExpression(node)) {
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
      if (ts.isIdentifier(callee) && (callee.text === 'patched' || callee.text === 'deprecatePatch')) {
        const [argument] = node.arguments;
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        calls.push({
          where: `${path.relative(path.resolve(__dirname, '..', '..'), file)}:${line + 1}`,
          call: callee.text,
          constant: argument && ts.isIdentifier(argument) ? argument.text : null,
          argument: argument?.getText(source) ?? '(none)',
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // A constant of the same name defined in the file itself is not the register's.
  return calls.map((call) => (call.constant && fromRegister.has(call.constant) ? call : { ...call, constant: null }));
}

const calls = SANDBOX_FOLDERS.flatMap(sandboxFiles).flatMap((file) => patchCallsOf(file));
/** The id a register constant holds (undefined for a name the register does not export as an id). */
const idOfConstant = (name: string): string | undefined => {
  const value = (register as Record<string, unknown>)[name];
  return typeof value === 'string' && PATCHES.some((patch) => patch.id === value) ? value : undefined;
};

describe('the patch register', () => {
  it('has each id once', () => {
    const ids = PATCHES.map((patch) => patch.id);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it('finds the patch calls of the workflow code, at least one per registered id', () => {
    expect(calls.length).toBeGreaterThanOrEqual(PATCHES.length);
  });

  it('tells a register constant from a literal or a local constant, and skips comments and strings', () => {
    // The reader the rules rest on: with an empty register, proof that it would see a call.
    const source = [
      "import { patched, deprecatePatch } from '@temporalio/workflow';",
      "import { SOME_CHANGE_PATCH } from './patch-ids';",
      "const LOCAL_PATCH = 'local';",
      'if (patched(SOME_CHANGE_PATCH)) deprecatePatch(LOCAL_PATCH);',
      '// patched(IN_A_COMMENT)',
      "const text = 'patched(IN_A_STRING)';",
      "workflow.patched('a-literal');",
    ].join('\n');
    const found = patchCallsOf(path.join(SANDBOX_FOLDERS[0]!, 'example.ts'), source).map(({ call, constant, argument }) => ({
      call,
      constant,
      argument,
    }));
    expect(found).toEqual([
      { call: 'patched', constant: 'SOME_CHANGE_PATCH', argument: 'SOME_CHANGE_PATCH' },
      { call: 'deprecatePatch', constant: null, argument: 'LOCAL_PATCH' },
      { call: 'patched', constant: null, argument: "'a-literal'" },
    ]);
  });

  it('knows every id the workflow code patches, each passed as its constant', () => {
    const unregistered = calls.filter((call) => !call.constant || !idOfConstant(call.constant));
    expect(
      unregistered.map((call) => `${call.where}: ${call.call}(${call.argument}) is not a constant of src/workflows/versioning/patches.ts`),
    ).toEqual([]);
  });

  it('has each registered id called as its stage says (patched, or deprecatePatch once deprecated)', () => {
    const problems = PATCHES.filter((patch) => {
      const used = calls.filter((call) => call.constant && idOfConstant(call.constant) === patch.id);
      const expected = patch.stage === 'patched' ? 'patched' : 'deprecatePatch';
      return used.length === 0 || used.some((call) => call.call !== expected);
    });
    expect(problems.map((patch) => `${patch.id} (stage ${patch.stage})`)).toEqual([]);
  });

  it('says how to tell that a history went through the code of each patch', () => {
    expect(PATCHES.map((patch) => patch.id).filter((id) => !PASSES_PATCHED_CODE[id])).toEqual([]);
  });

  it('finds no history carrying the marker of an id outside the register, or of a patch newer than its label', () => {
    const order = PATCHES.map((patch) => patch.id);
    const mislabelled = corpusFiles().flatMap((file) => {
      const label = parseCorpusPath(file)?.label;
      if (!label) return [];
      const newest = label === BASELINE_LABEL ? -1 : order.indexOf(label.slice('since-'.length));
      return patchMarkersOf(readCorpusHistory(file)).flatMap((id) => {
        if (!order.includes(id)) return [`${file} carries ${id}, which is not in the register`];
        return order.indexOf(id) > newest ? [`${file} carries ${id}, newer than its label`] : [];
      });
    });
    expect(mislabelled).toEqual([]);
  });
});

const plural = (count: number): string => `${count} recorded ${count === 1 ? 'history' : 'histories'}`;

// describe.each refuses an empty table: with no patch registered there is nothing per patch to check.
const perPatch = PATCHES.length > 0 ? describe.each(PATCHES.map((patch) => [patch.id, patch] as const)) : () => () => undefined;

perPatch('patch %s', (id: string, patch: (typeof PATCHES)[number]) => {
  const { with: withIt, without, missing } = patch.histories;

  if (withIt.length > 0) {
    it(`has ${plural(withIt.length)} with its marker`, () => {
      expect(withIt.filter((file) => !patchMarkersOf(readCorpusHistory(file)).includes(id)).map((file) => `${file} has no ${id} marker`)).toEqual([]);
    });
  } else {
    it(`has no recorded history with its marker, and says why: ${missing?.with ?? '(no reason given)'}`, () => {
      expect(missing?.with).toMatch(/\w/);
    });
  }

  if (without.length > 0) {
    it(`has ${plural(without.length)} that went through its code without the marker`, () => {
      const problems = without.flatMap((file) => {
        const history = readCorpusHistory(file);
        if (patchMarkersOf(history).includes(id)) return [`${file} has the ${id} marker`];
        if (!PASSES_PATCHED_CODE[id]?.(history)) return [`${file} does not go through the code of ${id}`];
        return [];
      });
      expect(problems).toEqual([]);
    });
  } else {
    it(`has no recorded history without its marker, and says why: ${missing?.without ?? '(no reason given)'}`, () => {
      expect(missing?.without).toMatch(/\w/);
    });
  }

  it('names a reason only for a side that has no history', () => {
    expect({ with: Boolean(missing?.with) && withIt.length > 0, without: Boolean(missing?.without) && without.length > 0 }).toEqual({
      with: false,
      without: false,
    });
  });
});
