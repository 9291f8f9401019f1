import { execFile } from 'node:child_process';
import { packageVersion } from '../config/index.js';

export interface Versions {
  agent: string | null;
  node: string;
  /** The OpenSSL Node.js is built with (the one TLS uses). */
  nodeOpenssl: string | null;
  /** The openssl command, used for development certificates. */
  systemOpenssl: string | null;
  platform: string;
}

/** The agent's package.json, found from the package (the one version every output shows). */
function agentVersion(): string | null {
  const version = packageVersion();
  return version === 'unknown' ? null : version;
}

function systemOpenssl(timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('openssl', ['version'], { timeout: timeoutMs }, (err, stdout) =>
      resolve(err ? null : stdout.trim() || null),
    );
  });
}

export async function collectVersions(timeoutMs = 2_000): Promise<Versions> {
  return {
    agent: agentVersion(),
    node: process.version,
    nodeOpenssl: process.versions.openssl ?? null,
    systemOpenssl: await systemOpenssl(timeoutMs),
    platform: `${process.platform} ${process.arch}`,
  };
}
