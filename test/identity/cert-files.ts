import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';

/** A copy of a key file with the given mode, so tests never chmod the shared dev certs. */
export function keyCopy(src: string, dir: string, mode: number, name = 'copy.key'): string {
  const file = join(dir, name);
  copyFileSync(src, file);
  chmodSync(file, mode);
  return file;
}

/** A self-signed P-256 certificate made directly with openssl, for subjects the dev PKI does not produce. */
export function selfSigned(dir: string, subject: string): { cert: string; key: string } {
  const cert = join(dir, 'self.crt');
  const key = join(dir, 'self.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      subject,
      '-days',
      '30',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  chmodSync(key, 0o600);
  return { cert, key };
}
