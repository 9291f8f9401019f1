import { statSync } from 'node:fs';
import { AgentError, ErrorCodes } from '../core/index.js';
import { secretConfigPaths } from './schema.js';

function valueAt(layer: Record<string, unknown>, path: string): unknown {
  let node: unknown = layer;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * A configuration file that holds a secret (`auth.password`, `auth.customToken.clientSecret`; docs/operations.md,
 * "Configuration keys that matter in production") must be open to its owner only, as the
 * device key must: mode 0600 (or 0400). Refused otherwise, naming the file, the key and the
 * chmod. A file without a secret is not checked (the secret may come from the environment).
 * `mode` is for tests; by default the file's own.
 */
export function checkSecretFileMode(file: string, layer: Record<string, unknown>, mode?: number): void {
  const secrets = secretConfigPaths.filter((p) => {
    const v = valueAt(layer, p);
    return v !== undefined && v !== null;
  });
  if (secrets.length === 0) return;
  const bits = (mode ?? statSync(file).mode) & 0o777;
  if ((bits & 0o077) === 0) return;
  throw new AgentError(
    ErrorCodes.CONFIG_PERMISSIONS,
    `config: ${file} holds ${secrets.join(', ')} and is open to group or others (mode ${bits.toString(8).padStart(4, '0')}): run \`chmod 600 ${file}\``,
    { details: { file, keys: secrets, mode: bits.toString(8) } },
  );
}
