import { connect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { isIP } from 'node:net';
import { AgentError, ErrorCodes } from '../../core/index.js';
import { type DeviceIdentity, mtlsTlsOptions } from '../../identity/index.js';
import { codeOf, isUnreachable, unreachableRemedy } from '../platform-access.js';
import type { DiagState } from '../state.js';
import type { Outcome } from '../types.js';

export interface TlsProbeResult {
  protocol: string | null;
  cipher: string;
  /** The server certificate chains to the platform CA (rejectUnauthorized would refuse it otherwise). */
  chainsToPlatformCa: boolean;
  serverSubject: string | undefined;
  serverNotAfter: string | undefined;
  handshakeMs: number;
}

const SERVER_UNTRUSTED =
  /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID|CERT_SIGNATURE_FAILURE)$/;

function subjectLine(cert: PeerCertificate): string | undefined {
  const s = cert.subject as unknown as Record<string, string> | undefined;
  return s === undefined
    ? undefined
    : Object.entries(s)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
}

/**
 * A TLS handshake with the device certificate and the platform CA as the only trust root
 * (as the mTLS dispatcher does), then one byte of HTTP: over TLS 1.3 a server refuses a
 * client certificate only after the handshake, so the answer is what proves acceptance.
 */
export function tlsProbe(url: string, identity: DeviceIdentity, signal: AbortSignal): Promise<TlsProbeResult> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || 443);
  const started = performance.now();
  return new Promise<TlsProbeResult>((resolve, reject) => {
    let socket: TLSSocket | undefined;
    let result: TlsProbeResult | undefined;
    let done = false;
    const finish = (err: Error | undefined): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      socket?.destroy();
      if (err !== undefined) reject(err);
      else if (result !== undefined) resolve(result);
    };
    const onAbort = (): void =>
      finish(new AgentError(ErrorCodes.PLATFORM_TIMEOUT, `TLS handshake with ${u.host} did not finish in time`));
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    socket = connect({
      host,
      port,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...mtlsTlsOptions(identity),
      ALPNProtocols: ['http/1.1'],
    });
    const s = socket;
    s.once('secureConnect', () => {
      const handshakeMs = performance.now() - started;
      const peer = s.getPeerCertificate(false);
      result = {
        protocol: s.getProtocol(),
        cipher: s.getCipher().name,
        chainsToPlatformCa: s.authorized,
        serverSubject: peer && Object.keys(peer).length > 0 ? subjectLine(peer) : undefined,
        serverNotAfter: peer?.valid_to ? new Date(peer.valid_to).toISOString() : undefined,
        handshakeMs: Math.round(handshakeMs * 10) / 10,
      };
      s.write(`GET / HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
    });
    s.once('data', () => finish(undefined));
    s.once('error', (err: Error) => finish(err));
    s.once('close', () => {
      if (result === undefined)
        return finish(
          new AgentError(ErrorCodes.PLATFORM_NETWORK, `${u.host} closed the connection during the TLS handshake`),
        );
      finish(
        Object.assign(
          new AgentError(
            ErrorCodes.AUTH_CERT_REFUSED,
            'closed the connection right after the TLS handshake without answering',
          ),
          {
            afterHandshake: true,
          },
        ),
      );
    });
  });
}

async function probeOne(
  state: DiagState,
  which: 'device-auth' | 'api',
  url: string,
  signal: AbortSignal,
): Promise<Outcome> {
  const identity = state.identity as DeviceIdentity;
  const host = new URL(url).host;
  try {
    const r = await tlsProbe(url, identity, signal);
    return {
      status: 'ok',
      finding: `${host}: ${r.protocol ?? 'TLS'} ${r.cipher}, server certificate chains to the platform CA, ${which === 'device-auth' ? 'device certificate accepted' : 'HTTP answered'}, handshake ${r.handshakeMs} ms`,
      facts: { host, ...r },
    };
  } catch (err) {
    const code = codeOf(err);
    const message = err instanceof Error ? err.message : String(err);
    if (isUnreachable(err)) {
      const finding = `platform not reachable at ${host} (${code})`;
      const remedy = unreachableRemedy(state, host);
      state.unreachable ??= { finding, remedy };
      return { status: 'fail', finding, remedy, facts: { host, code } };
    }
    if (code !== undefined && SERVER_UNTRUSTED.test(code)) {
      return {
        status: 'fail',
        finding: `${host}: the server certificate is not trusted (${code})`,
        remedy:
          code === 'ERR_TLS_CERT_ALTNAME_INVALID'
            ? 'the URL names another host than the server certificate: check the platform.* URLs'
            : 'identity.caFile must be the platform CA that issued the server certificate; check the URL is the platform, not a proxy',
        facts: { host, code },
      };
    }
    if ((code !== undefined && /ALERT|ECONNRESET|EPIPE/.test(code)) || code === ErrorCodes.AUTH_CERT_REFUSED) {
      return {
        status: 'fail',
        finding: `${host} refused the device certificate (${code === ErrorCodes.AUTH_CERT_REFUSED ? message : code})`,
        remedy:
          'install a valid device certificate issued by the platform CA (`terminal-agent certs show`); check the clock if it says the certificate is not yet valid',
        facts: { host, code },
      };
    }
    return {
      status: 'fail',
      finding: `${host}: ${message}`,
      remedy: 'check the platform.* URLs and the network',
      facts: { host, code },
    };
  }
}

/** Check 4: TLS with the device auth host (mTLS required) or the main API host; one step each, so each has its own time bound. */
export async function checkTls(state: DiagState, host: 'device-auth' | 'api', signal: AbortSignal): Promise<Outcome> {
  if (state.endpoints === undefined) return { status: 'skip', finding: 'needs the configuration (see config)' };
  if (state.identity === undefined)
    return { status: 'skip', finding: 'needs the device certificate (see certificate)' };
  const url = host === 'device-auth' ? state.endpoints.deviceAuthUrl : state.endpoints.baseUrl;
  return probeOne(state, host, url, signal);
}
