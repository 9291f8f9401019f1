import { AuthService } from '../../src/auth/index.js';
import type { Logger } from '../../src/core/index.js';
import { createMtlsDispatcher, loadIdentity } from '../../src/identity/index.js';
import { HostDispatchers, PlatformClient } from '../../src/platform/index.js';

/**
 * A platform client as the agent builds it (device identity, mTLS dispatchers, device
 * tokens from AuthService), for the offline chaos run and the offline tests against the
 * demo platform.
 */
export interface DemoClientOptions {
  apiUrl: string;
  mtlsUrl: string;
  certFile: string;
  keyFile: string;
  caFile: string;
  log: Logger;
  headersTimeoutMs?: number;
  availabilityTimeoutMs?: number;
}

export interface DemoClient {
  platform: PlatformClient;
  auth: AuthService;
  close(): Promise<void>;
}

export async function createDemoClient(opts: DemoClientOptions): Promise<DemoClient> {
  const identity = loadIdentity({ certFile: opts.certFile, keyFile: opts.keyFile, caFile: opts.caFile });
  const timeouts = {
    connectTimeoutMs: 2_000,
    headersTimeoutMs: opts.headersTimeoutMs ?? 5_000,
    bodyTimeoutMs: opts.headersTimeoutMs ?? 5_000,
  };
  const dispatchers = new HostDispatchers(() => createMtlsDispatcher(identity, timeouts));
  const auth = new AuthService({
    identity,
    endpoints: { authUrl: opts.apiUrl, deviceAuthUrl: opts.mtlsUrl },
    dispatchers,
    settings: {
      mode: 'client_credentials',
      refreshRatio: 0.8,
      leewaySeconds: 30,
      backoffBaseMs: 20,
      backoffCapMs: 500,
    },
    log: opts.log,
  });
  await auth.start();
  const platform = new PlatformClient({
    baseUrl: opts.apiUrl,
    dispatchers,
    tokens: auth,
    log: opts.log,
    headersTimeoutMs: timeouts.headersTimeoutMs,
    bodyTimeoutMs: timeouts.bodyTimeoutMs,
    availabilityTimeoutMs: opts.availabilityTimeoutMs ?? 2_000,
    getRetry: { retries: 0 },
  });
  return {
    platform,
    auth,
    async close() {
      auth.stop();
      await dispatchers.close();
    },
  };
}
