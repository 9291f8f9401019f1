import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../core/index.js';
import type { Config } from '../../config/index.js';
import { FaultInjector } from './faults.js';
import { SimRouter } from './router.js';
import { loadSeed, type Seed } from './seed.js';
import type { SimContext, SimSettings } from './context.js';
import { SimProfile } from './profile.js';
import { createAuthServer, type SimAuthServer } from './auth/index.js';
import { createPaymentPlatform, type SimPaymentPlatform } from './payments/index.js';
import { registerControlRoutes } from './control-routes.js';
import { Reachability } from './unreachable.js';

export interface DemoPlatformOptions {
  host?: string;
  /** 0 = any free port. */
  apiPort?: number;
  mtlsPort?: number;
  tls: { certFile: string; keyFile: string; caFile: string };
  seed: Seed | string;
  settings?: Partial<SimSettings>;
  log: Logger;
  /** Real time and timers (docs/architecture.md, "Time"); the platform clock is this plus an offset the control routes set. */
  clock?: Clock;
  /** The ledger file: payment state kept across restarts (docs/demo-platform.md, "Demo platform"); in memory only without it. */
  stateFile?: string;
}

export interface DemoPlatform {
  urls: { api: string; mtls: string };
  faults: FaultInjector;
  auth: SimAuthServer;
  payments: SimPaymentPlatform;
  context: SimContext;
  /** Makes the platform unreachable for a while (`PUT /sim/control/unreachable`). */
  reachability: Reachability;
  stop(): Promise<void>;
}

export const defaultSimSettings: SimSettings = {
  accessTokenSeconds: 300,
  refreshTokenSeconds: 1_800,
  walletPayDelayMs: 8_000,
  qrExpirySeconds: 300,
  profile: 'standard',
};

/** The ledger file's name in the data directory (`sim.persistLedger`). */
export const DEMO_LEDGER_FILE = 'demo-platform-ledger.json';

/** The demo platform's listeners, seed and settings from the `sim` section of the configuration. */
export function demoPlatformConfig(
  sim: Config['sim'],
): Pick<DemoPlatformOptions, 'host' | 'apiPort' | 'mtlsPort' | 'seed' | 'settings'> {
  return {
    host: sim.host,
    apiPort: sim.apiPort,
    mtlsPort: sim.mtlsPort,
    seed: sim.seedFile,
    settings: {
      accessTokenSeconds: sim.accessTokenSeconds,
      refreshTokenSeconds: sim.refreshTokenSeconds,
      walletPayDelayMs: sim.walletPayDelayMs,
      qrExpirySeconds: sim.qrExpirySeconds,
      profile: sim.profile,
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * The demo platform: one HTTPS listener for the security host and the payment API
 * (client certificates requested, not required: the mTLS paths check them), and one
 * listener for the device token endpoint that requires a certificate from the platform CA.
 */
export async function startDemoPlatform(opts: DemoPlatformOptions): Promise<DemoPlatform> {
  const host = opts.host ?? '127.0.0.1';
  const seed = typeof opts.seed === 'string' ? loadSeed(opts.seed) : opts.seed;
  const clock = opts.clock ?? systemClock();
  const faults = new FaultInjector(clock);
  const log = opts.log.child({ module: 'demo-platform' });
  const tls = {
    cert: readFileSync(opts.tls.certFile),
    key: readFileSync(opts.tls.keyFile),
    ca: readFileSync(opts.tls.caFile),
    minVersion: 'TLSv1.2' as const,
    maxVersion: 'TLSv1.3' as const,
  };
  const router = new SimRouter(faults, log, clock);
  const api = createServer({ ...tls, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    void router.handle(req, res, 'api');
  });
  const mtls = createServer({ ...tls, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    void router.handle(req, res, 'mtls');
  });
  // A refused handshake (no or foreign certificate, old TLS version) is the client's problem, not ours.
  for (const s of [api, mtls])
    s.on('tlsClientError', (err) => log.debug({ err: err.message }, 'TLS handshake refused'));

  const apiPort = await listen(api, opts.apiPort ?? 0, host);
  const mtlsPort = await listen(mtls, opts.mtlsPort ?? 0, host);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const settings: SimSettings = { ...defaultSimSettings, ...opts.settings };
  const context: SimContext = {
    seed,
    settings,
    faults,
    profile: new SimProfile(settings.profile),
    now: () => faults.now(),
    clock,
    log,
    tokens: {
      verifyBearer: () => {
        throw new Error('authorization server not built yet');
      },
    },
    urls: { api: `https://${urlHost}:${apiPort}`, mtls: `https://${urlHost}:${mtlsPort}` },
  };
  const auth = createAuthServer(router, context);
  context.tokens = auth.verifier;
  let payments: SimPaymentPlatform;
  try {
    payments = createPaymentPlatform(
      router,
      context,
      opts.stateFile !== undefined ? { stateFile: opts.stateFile } : {},
    );
  } catch (err) {
    // An unreadable ledger file stops the start: the listeners go with it.
    await Promise.all([close(api), close(mtls)]);
    throw err;
  }
  const reachability = new Reachability(
    [
      { server: api, port: apiPort, host },
      { server: mtls, port: mtlsPort, host },
    ],
    clock,
    log,
  );
  registerControlRoutes(router, context, { auth, payments, reachability });
  log.info({ api: context.urls.api, mtls: context.urls.mtls }, 'demo platform listening');

  return {
    urls: context.urls,
    faults,
    auth,
    payments,
    context,
    reachability,
    async stop() {
      reachability.stop();
      payments.stop();
      await Promise.all([close(api), close(mtls)]);
    },
  };
}
