import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { Logger } from '../src/core/logger.js';
import { PlatformClient, type BearerProvider } from '../src/platform/index.js';

/**
 * A platform client of the demo platform for offline chaos runs and tests: the device
 * certificate over mutual TLS and client-credentials tokens from the device token endpoint
 * (spec Authentication 4), one per merchant, fetched again after a 401. Deliberately small:
 * the agent's own token manager lives in src/auth.
 */
export interface DemoClientOptions {
  apiUrl: string;
  mtlsUrl: string;
  certFile: string;
  keyFile: string;
  caFile: string;
  /** merchantId -> client credentials; the first one is the default merchant. */
  merchants: Array<{ merchantId: string; clientId: string; clientSecret: string }>;
  log: Logger;
  headersTimeoutMs?: number;
  availabilityTimeoutMs?: number;
}

export interface DemoClient {
  platform: PlatformClient;
  close(): Promise<void>;
}

class ClientCredentialsBearer implements BearerProvider {
  private readonly cache = new Map<string, Promise<string>>();

  constructor(private readonly opts: DemoClientOptions, private readonly agent: Agent) {}

  tokenFor(merchantId?: string): Promise<string> {
    const m = merchantId === undefined ? this.opts.merchants[0] : this.opts.merchants.find((x) => x.merchantId === merchantId);
    if (m === undefined) return Promise.reject(new Error(`no client credentials for merchant ${merchantId ?? '(default)'}`));
    let token = this.cache.get(m.merchantId);
    if (token === undefined) {
      token = this.grant(m.clientId, m.clientSecret);
      token.catch(() => this.cache.delete(m.merchantId));
      this.cache.set(m.merchantId, token);
    }
    return token;
  }

  invalidate(merchantId: string | undefined): void {
    this.cache.delete(merchantId ?? this.opts.merchants[0]?.merchantId ?? '');
  }

  private async grant(clientId: string, clientSecret: string): Promise<string> {
    const res = await request(`${this.opts.mtlsUrl}/oauth2-mtls/v1/token`, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`token endpoint answered ${res.statusCode}`);
    const body = JSON.parse(text) as { access_token?: unknown };
    if (typeof body.access_token !== 'string') throw new Error('token endpoint answered without access_token');
    return body.access_token;
  }
}

export function createDemoClient(opts: DemoClientOptions): DemoClient {
  const agent = new Agent({
    connect: { ca: readFileSync(opts.caFile), cert: readFileSync(opts.certFile), key: readFileSync(opts.keyFile), minVersion: 'TLSv1.2' },
    headersTimeout: opts.headersTimeoutMs ?? 5_000,
    bodyTimeout: opts.headersTimeoutMs ?? 5_000,
  });
  const tokens = new ClientCredentialsBearer(opts, agent);
  const platform = new PlatformClient({
    baseUrl: opts.apiUrl,
    dispatchers: agent,
    tokens,
    log: opts.log,
    ...(opts.headersTimeoutMs !== undefined ? { headersTimeoutMs: opts.headersTimeoutMs, bodyTimeoutMs: opts.headersTimeoutMs } : {}),
    availabilityTimeoutMs: opts.availabilityTimeoutMs ?? 2_000,
    getRetry: { retries: 0 },
  });
  return { platform, close: () => agent.close() };
}

/** Client credentials of the demo seed's merchants (config/demo-seed.json). */
export function seedMerchants(seedFile: string): DemoClientOptions['merchants'] {
  const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as { merchants: Array<{ merchantId: string; clientId: string; clientSecret: string }> };
  return seed.merchants.map((m) => ({ merchantId: m.merchantId, clientId: m.clientId, clientSecret: m.clientSecret }));
}
