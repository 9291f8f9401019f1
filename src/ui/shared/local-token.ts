import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Logger, AgentError, ErrorCodes } from '../../core/index.js';

export const LOCAL_TOKEN_FILE = 'local-api.token';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43,128}$/;

export function localTokenPath(dataDir: string): string {
  return join(dataDir, LOCAL_TOKEN_FILE);
}

/**
 * The per-install local API token (docs/architecture.md, "Invariants" 5, loopback only):
 * generated at first start into the data directory with mode 0600 and reused after, so
 * the CLI and an open page keep working across restarts. A file readable by others is tightened back to 0600.
 */
export function loadOrCreateLocalToken(dataDir: string, log: Logger): string {
  const file = localTokenPath(dataDir);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (TOKEN_SHAPE.test(existing)) {
      const mode = statSync(file).mode & 0o777;
      if ((mode & 0o077) !== 0) {
        chmodSync(file, 0o600);
        log.warn({ file, mode: mode.toString(8) }, 'local API token file was readable by others; mode set to 0600');
      }
      return existing;
    }
    log.warn({ file }, 'local API token file is malformed; writing a new token');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `cannot read the local API token ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
        {
          cause: err,
        },
      );
    }
  }
  const token = randomBytes(32).toString('base64url');
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    // writeFileSync keeps the mode of an existing file; make sure.
    chmodSync(file, 0o600);
  } catch (err) {
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `cannot write the local API token ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      {
        cause: err,
      },
    );
  }
  log.info({ file }, 'local API token created');
  return token;
}

/** The digest of the expected token, hashed once (it is the same on every request). */
let expectedDigest: { token: string; digest: Buffer } | undefined;

function digestOf(expected: string): Buffer {
  if (expectedDigest?.token !== expected)
    expectedDigest = { token: expected, digest: createHash('sha256').update(expected).digest() };
  return expectedDigest.digest;
}

/** Constant-time comparison of a presented token with the expected one. */
export function tokenMatches(presented: string, expected: string): boolean {
  // Hashing first gives equal lengths, so timingSafeEqual never throws and length leaks nothing.
  const a = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, digestOf(expected));
}
