import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Versions {
  agent: string | null;
  node: string;
  /** The OpenSSL Node.js is built with (the one TLS uses). */
  nodeOpenssl: string | null;
  /** The openssl command, used for development certificates. */
  systemOpenssl: string | null;
  platform: string;
}

/** The agent's package.json, found upwards from this module (src/ or dist/src/). */
function agentVersion(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
        if (pkg.name === 'terminal-agent' && typeof pkg.version === 'string') return pkg.version;
      } catch {
        // keep looking
      }
    }
    dir = dirname(dir);
  }
  return null;
}

function systemOpenssl(timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('openssl', ['version'], { timeout: timeoutMs }, (err, stdout) => resolve(err ? null : stdout.trim() || null));
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
