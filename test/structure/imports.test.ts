import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importCycles, readImportGraph, structureViolations } from './import-graph.js';
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
