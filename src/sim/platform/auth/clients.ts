import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Seed } from '../seed.js';

/** A registered OAuth client: a merchant's terminal application or a portal application. */
export interface OAuthClient {
  clientId: string;
  /** merchant: seeded merchant credentials (terminals); application: portal or powered app. */
  kind: 'merchant' | 'application';
  /** Public clients (no secret) cannot use client_credentials. */
  confidential: boolean;
  redirectUris: readonly string[];
  /** The merchant the client acts for (profile claim entityId), if any. */
  merchantId: string | undefined;
  /** The platform's designated application for the password grant (docs/platform-contract.md, "Tokens"). */
  powered: boolean;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * The clients of the demo realm and their current secrets. Renewing a secret makes the
 * old one fail from then on (docs/platform-contract.md, "Tokens", invalid_client); tokens are not touched.
 */
export class ClientRegistry {
  private readonly clients = new Map<string, OAuthClient>();
  private readonly secrets = new Map<string, string>();

  constructor(seed: Seed) {
    for (const m of seed.merchants) {
      this.clients.set(m.clientId, {
        clientId: m.clientId,
        kind: 'merchant',
        confidential: true,
        redirectUris: [],
        merchantId: m.merchantId,
        powered: false,
      });
      this.secrets.set(m.clientId, m.clientSecret);
    }
    for (const a of seed.applications) {
      this.clients.set(a.clientId, {
        clientId: a.clientId,
        kind: 'application',
        confidential: a.clientSecret !== null,
        redirectUris: a.redirectUris,
        merchantId: a.merchantId ?? undefined,
        powered: a.powered === true,
      });
      if (a.clientSecret !== null) this.secrets.set(a.clientId, a.clientSecret);
    }
  }

  get(clientId: string): OAuthClient | undefined {
    return this.clients.get(clientId);
  }

  /** The client's secret as of now (the credentials endpoint answers the current one). */
  currentSecret(clientId: string): string | undefined {
    return this.secrets.get(clientId);
  }

  /** Constant-time comparison of a presented secret with the current one. */
  secretMatches(clientId: string, presented: string): boolean {
    const current = this.secrets.get(clientId);
    if (current === undefined) return false;
    return timingSafeEqual(digest(current), digest(presented));
  }

  /** Issues a new secret; undefined for unknown or public clients. */
  renew(clientId: string): string | undefined {
    const client = this.clients.get(clientId);
    if (client === undefined || !client.confidential) return undefined;
    const secret = randomBytes(24).toString('base64url');
    this.secrets.set(clientId, secret);
    return secret;
  }
}
