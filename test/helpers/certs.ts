import { inject } from 'vitest';
import { devCertPaths, type DevCertPaths } from '../../src/identity/index.js';

/** The development certificates generated once for this test run (test/global-setup.ts). */
export function testCerts(): DevCertPaths {
  return devCertPaths(inject('certsDir'));
}
