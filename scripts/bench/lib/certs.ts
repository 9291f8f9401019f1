import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCertPaths, generateDevCerts, type DevCertPaths } from '../../../src/identity/index.js';

/** The dev PKI of `dir`, or a fresh one in a temp dir (removed by cleanup). Generated with openssl: not timed. */
export function benchCerts(dir?: string): { paths: DevCertPaths; cleanup: () => void } {
  if (dir !== undefined) return { paths: devCertPaths(dir), cleanup: () => {} };
  const tmp = mkdtempSync(join(tmpdir(), 'terminal-agent-bench-certs-'));
  generateDevCerts(tmp);
  return { paths: devCertPaths(tmp), cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
}

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
