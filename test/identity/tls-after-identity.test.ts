import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/lib/repo.js';
import { testCerts } from '../helpers/certs.js';

/**
 * In a fresh node, as the agent and the chaos children start: reading the device identity
 * (which parses the certificate's subject with toLegacyObject) must leave TLS working. Node
 * 22 breaks every later TLS connection when that parse comes before node:tls is loaded
 * (src/identity/subject.ts). Runs the built identity module: build first.
 */
describe('TLS after loading the device identity', () => {
  it('a TLS connection still reaches the network (refused by a closed port, not a TypeError)', () => {
    const certs = testCerts();
    const identity = pathToFileURL(join(repoRoot(), 'dist', 'src', 'identity', 'index.js')).href;
    const script = `
      const { loadIdentity } = await import(${JSON.stringify(identity)});
      loadIdentity({ certFile: ${JSON.stringify(certs.deviceCert)}, keyFile: ${JSON.stringify(certs.deviceKey)}, caFile: ${JSON.stringify(certs.caCert)} });
      const tls = (await import('node:module')).createRequire(import.meta.url)('node:tls');
      try {
        tls.connect({ host: '127.0.0.1', port: 9 }).on('error', (e) => process.stdout.write('socket ' + e.code));
      } catch (e) {
        process.stdout.write('threw ' + e.message);
      }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stdout, r.stderr).toBe('socket ECONNREFUSED');
  });
});
