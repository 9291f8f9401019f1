import { chmodSync, copyFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/core/logger.js';
import { startDemoPlatform, type DemoPlatform } from '../../src/sim/platform/server.js';
import { testCerts } from '../helpers/certs.js';

export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export async function demoPlatform(): Promise<DemoPlatform> {
  const certs = testCerts();
  return startDemoPlatform({
    apiPort: 0,
    mtlsPort: 0,
    tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
    seed: 'config/demo-seed.json',
    log: silentLogger(),
  });
}

type Flags = Parameters<typeof loadConfig>[0] extends infer O
  ? O extends { flags?: infer F }
    ? NonNullable<F>
    : never
  : never;

/** Configuration of a terminal talking to `urls` (environment local without the embedded platform: simulated devices run only in local). */
export function diagConfig(
  dataDir: string,
  urls: { api: string; mtls: string },
  apiPort: number,
  extra: Flags = {},
): LoadedConfig {
  const certs = testCerts();
  const base: Flags = {
    environment: 'local',
    dataDir,
    identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
    platform: { baseUrl: urls.api, authUrl: urls.api, deviceAuthUrl: urls.mtls },
    api: { port: apiPort },
    devices: { simulate: true },
    sim: { embedded: false },
    log: { level: 'silent' },
  };
  return loadConfig({ cwd: process.cwd(), env: {}, flags: deepMerge(base, extra) });
}

function deepMerge(a: Flags, b: Flags): Flags {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      prev !== null &&
      typeof prev === 'object' &&
      !Array.isArray(prev) &&
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v)
        ? deepMerge(prev as Flags, v)
        : v;
  }
  return out as Flags;
}

/** A copy of the device key with another mode. */
export function keyWithMode(dir: string, mode: number): string {
  const file = join(dir, `device-${mode.toString(8)}.key`);
  copyFileSync(testCerts().deviceKey, file);
  chmodSync(file, mode);
  return file;
}
