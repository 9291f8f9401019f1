import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { generateDevCerts } from '../src/identity/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    certsDir: string;
  }
}

/** One development PKI for the whole run, in a temporary directory. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'terminal-agent-test-certs-'));
  generateDevCerts(dir);
  project.provide('certsDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
