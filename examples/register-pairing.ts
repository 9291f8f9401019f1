/**
 * Pairing and pinning for the example register (examples/register.ts) on the terminal's
 * store-network listener (docs/registers.md, "Pairing"). Like the register, it uses nothing
 * of the agent's code: Node's tls and undici, as a register in any language would use its
 * own TLS stack.
 *
 * The terminal's certificate is self-signed, so no CA vouches for it. The clerk reads its
 * SHA-256 fingerprint off the terminal; the register connects once without verification,
 * compares the fingerprint of the certificate it was shown, and from then on trusts only
 * that certificate (it is the only trust anchor of every later connection).
 */
import { once } from 'node:events';
import { chmodSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeSync, closeSync } from 'node:fs';
import { isIP } from 'node:net';
import { connect } from 'node:tls';
import { Agent, fetch } from 'undici';

/** What a paired register keeps (mode 0600: the API key is a secret). */
export interface RegisterPairing {
  /** The store-network listener, e.g. https://192.168.1.20:8444. */
  url: string;
  register: { id: string; name: string };
  /** SHA-256 fingerprint of the pinned certificate, AA:BB:... */
  fingerprint: string;
  /** The terminal's certificate (PEM): the only certificate this register trusts. */
  certificate: string;
  apiKey: string;
}

/** Fingerprints are compared without separators and case: "ab cd", "AB:CD" and "abcd" are one. */
export function sameFingerprint(a: string, b: string): boolean {
  const norm = (s: string): string => s.replace(/[^0-9a-f]/gi, '').toUpperCase();
  return norm(a).length === 64 && norm(a) === norm(b);
}

function listenerUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(
      `${url} is not a URL: give the listener's address as the terminal shows it, e.g. https://192.168.1.20:8444`,
    );
  }
  if (u.protocol !== 'https:') throw new Error(`${url}: the store-network listener speaks HTTPS only (https://...)`);
  return u;
}

/** The certificate the listener presents, read without verifying it (it is checked against the fingerprint next). */
async function presentedCertificate(url: string): Promise<{ pem: string; fingerprint: string }> {
  const u = listenerUrl(url);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const socket = connect({
    host,
    port: Number(u.port || 443),
    rejectUnauthorized: false,
    ...(isIP(host) === 0 ? { servername: host } : {}),
  });
  try {
    await Promise.race([
      once(socket, 'secureConnect').catch((err: Error) => {
        throw new Error(
          `cannot reach the terminal at ${u.host}: ${err.message} (check the URL the terminal shows and that the register is on the store network)`,
        );
      }),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`no TLS answer from ${u.host} within 10 s`)), 10_000).unref(),
      ),
    ]);
    const cert = socket.getPeerX509Certificate();
    if (cert === undefined) throw new Error(`${u.host} presented no certificate`);
    return { pem: cert.toString(), fingerprint: cert.fingerprint256 };
  } finally {
    socket.destroy();
  }
}

/** A connection pool that trusts the pinned certificate and nothing else. */
export function pinnedDispatcher(certificate: string): Agent {
  return new Agent({ connect: { ca: certificate } });
}

/** Writes the pairing to `file` with mode 0600, replacing it atomically. */
function store(file: string, pairing: RegisterPairing): void {
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(pairing, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Reads what `pairRegister` stored; a clear message when the register has not paired. */
export function loadPairing(file: string): RegisterPairing {
  if (!existsSync(file))
    throw new Error(
      `${file} does not exist: this register is not paired; run "register pair --url URL --fingerprint FP --code CODE --register-file ${file}" with the code the terminal shows`,
    );
  let p: Partial<RegisterPairing>;
  try {
    p = JSON.parse(readFileSync(file, 'utf8')) as Partial<RegisterPairing>;
  } catch (err) {
    throw new Error(`${file} cannot be read as a register pairing (${(err as Error).message}): pair again`, {
      cause: err,
    });
  }
  if (
    typeof p.url !== 'string' ||
    typeof p.apiKey !== 'string' ||
    typeof p.certificate !== 'string' ||
    typeof p.fingerprint !== 'string' ||
    p.register === undefined
  ) {
    throw new Error(`${file} is not a register pairing: pair again`);
  }
  return p as RegisterPairing;
}

export interface PairOptions {
  url: string;
  /** The fingerprint the terminal shows (page, `terminal-agent registers pair`). */
  fingerprint: string;
  code: string;
  name: string;
  /** Where the API key and the pinned certificate are kept (created with mode 0600). */
  file: string;
}

/**
 * Pins the terminal's certificate and exchanges the one-time code for this register's API
 * key (POST /api/v1/pairing). Nothing is sent before the certificate matched the fingerprint.
 */
export async function pairRegister(opts: PairOptions): Promise<RegisterPairing> {
  const url = listenerUrl(opts.url).origin;
  const shown = await presentedCertificate(url);
  if (!sameFingerprint(shown.fingerprint, opts.fingerprint)) {
    throw new Error(
      `the terminal at ${url} presents the certificate ${shown.fingerprint}, not ${opts.fingerprint}: check the fingerprint the terminal shows; nothing was sent`,
    );
  }
  const dispatcher = pinnedDispatcher(shown.pem);
  try {
    const res = await fetch(`${url}/api/v1/pairing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ code: opts.code, name: opts.name }),
      dispatcher,
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await res.json().catch(() => ({}))) as {
      register?: { id: string; name: string };
      apiKey?: string;
      fingerprint?: string;
      error?: { code?: string; message?: string };
    };
    if (res.status !== 201 || body.apiKey === undefined || body.register === undefined) {
      const retry = res.headers.get('retry-after');
      throw new Error(
        `the terminal refused the pairing: ${body.error?.message ?? `HTTP ${res.status}`}${retry !== null ? ` (try again in ${retry} s)` : ''}`,
      );
    }
    if (body.fingerprint !== undefined && !sameFingerprint(body.fingerprint, shown.fingerprint)) {
      throw new Error(
        `the terminal answered with the fingerprint ${body.fingerprint}, not the pinned ${shown.fingerprint}: not stored`,
      );
    }
    const pairing: RegisterPairing = {
      url,
      register: { id: body.register.id, name: body.register.name },
      fingerprint: shown.fingerprint,
      certificate: shown.pem,
      apiKey: body.apiKey,
    };
    store(opts.file, pairing);
    return pairing;
  } finally {
    await dispatcher.close();
  }
}
