import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UI_PARTS, importCycles, readImportGraph, structureViolations } from './import-graph.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function tree(files: Record<string, string>): string {
  const { dir: root, cleanup } = tempDir('structure-');
  cleanups.push(cleanup);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the layering of src/', () => {
  it('src/ keeps the layering, reaches folders through their index.ts and has no import cycle', () => {
    const violations = structureViolations(readImportGraph('src'));
    expect(violations, violations.join('\n')).toEqual([]);
  });

  it('reports an import that runs upwards, one past a folder index and one from the demo platform into the agent', () => {
    const root = tree({
      'core/index.ts': 'export const a = 1;\n',
      'payments/index.ts': "export * from './journal.js';\n",
      'payments/journal.ts': "import { b } from '../offline/index.js';\nexport const j = b;\n",
      'offline/index.ts': "export const b = 2;\nimport type { j } from '../payments/journal.js';\n",
      'sim/index.ts': "import { j } from '../payments/index.js';\n",
      'ui/index.ts': "import { a } from '../core/index.js';\n",
    });
    const violations = structureViolations(readImportGraph(root));
    expect(violations).toContainEqual(
      expect.stringContaining('payments/journal.ts:1 imports offline/index.ts: payments may not depend on offline'),
    );
    expect(violations).toContainEqual(
      expect.stringContaining(
        'offline/index.ts:2 imports payments/journal.ts: reach payments/ through payments/index.ts',
      ),
    );
    expect(violations).toContainEqual(
      expect.stringContaining('sim/index.ts:1 imports payments/index.ts: sim may not depend on payments'),
    );
    expect(violations.some((v) => v.startsWith('ui/'))).toBe(false);
  });

  it('declares the parts of ui/ in an order without a cycle', () => {
    const placed: string[] = [];
    let left = Object.keys(UI_PARTS);
    while (left.length > 0) {
      const ready = left.filter((p) => (UI_PARTS[p] ?? []).every((q) => placed.includes(q)));
      expect(ready, `a cycle among ${left.join(', ')}`).not.toEqual([]);
      placed.push(...ready);
      left = left.filter((p) => !ready.includes(p));
    }
  });

  it('keeps the parts of ui/ apart: allowed directions only, each reached through its index.ts, no file outside a part', () => {
    const root = tree({
      'ui/index.ts': "export * from './local/index.js';\nexport * from './lan/index.js';\n",
      'ui/wire-types.ts': "export type * from './shared/wire-types.js';\n",
      'ui/loose.ts': 'export const loose = 1;\n',
      'ui/shared/index.ts': "export type * from './wire-types.js';\n",
      'ui/shared/wire-types.ts': 'export type A = 1;\n',
      'ui/openapi/index.ts': "import type { A } from '../shared/index.js';\nimport { r } from '../local/index.js';\n",
      'ui/page/app.ts': "import type { A } from '../wire-types.js';\nimport { r } from '../local/index.js';\n",
      'ui/local/index.ts': "export { r } from './router.js';\n",
      'ui/local/router.ts': "import { lan } from '../lan/index.js';\nexport const r = 1;\n",
      'ui/lan/index.ts':
        "import { r } from '../local/router.js';\nimport type { A } from '../wire-types.js';\nexport const lan = 1;\n",
    });
    const violations = structureViolations(readImportGraph(root));
    expect(violations).toEqual(
      expect.arrayContaining([
        expect.stringContaining('ui/loose.ts: a file of ui/ belongs in one of its parts'),
        expect.stringContaining(
          'ui/openapi/index.ts:2 imports ui/local/index.ts: ui part openapi may not depend on ui part local',
        ),
        expect.stringContaining(
          'ui/page/app.ts:2 imports ui/local/index.ts: ui part page may not depend on ui part local',
        ),
        expect.stringContaining(
          'ui/local/router.ts:1 imports ui/lan/index.ts: ui part local may not depend on ui part lan',
        ),
        expect.stringContaining(
          'ui/lan/index.ts:1 imports ui/local/router.ts: reach ui/local/ through ui/local/index.ts',
        ),
        expect.stringContaining(
          'ui/lan/index.ts:2 imports ui/wire-types.ts: reach ui/shared/ through ui/shared/index.ts',
        ),
      ]),
    );
    expect(violations.filter((v) => v.startsWith('ui/'))).toHaveLength(6);
  });

  it('finds a cycle through type-only imports and dynamic imports, and none in a chain', () => {
    const root = tree({
      'diag/state.ts': "import type { X } from './checks/x.js';\n",
      'diag/checks/x.ts': "export type X = 1;\nconst s = () => import('../state.js');\n",
      'diag/a.ts': "import './b.js';\n",
      'diag/b.ts': 'export {};\n',
    });
    expect(importCycles(readImportGraph(root))).toEqual([['diag/checks/x.ts', 'diag/state.ts']]);
  });
});
