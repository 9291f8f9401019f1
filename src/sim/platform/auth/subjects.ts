import { randomUUID } from 'node:crypto';
import type { Seed } from '../seed.js';

type SeedUser = Seed['users'][number];

/** The resource owner a token speaks for: a seeded user or a client's service account. */
export interface Subject {
  /** Random UUID, stable for the platform's lifetime and unique within the realm (the platform's `sub`). */
  id: string;
  preferredUsername: string;
  /** Merchant id (profile claim entityId) or undefined for a client without a merchant. */
  entityId: string | undefined;
  name: string | undefined;
  givenName: string | undefined;
  familyName: string | undefined;
  email: string | undefined;
  phone: string | undefined;
  kind: 'user' | 'service-account';
  /** A seeded user's own permissions claim; undefined: the merchant's (claims.ts). */
  permissions?: readonly string[];
  /** A seeded user's own locale, zoneinfo and datetimeformat claims; undefined: the realm's (claims.ts). */
  locale?: string;
  zoneinfo?: string;
  datetimeformat?: string;
}

/** Hands out one Subject per user or client and finds it again by its `sub`. */
export class SubjectDirectory {
  private readonly byKey = new Map<string, Subject>();
  private readonly byId = new Map<string, Subject>();

  constructor(private readonly seed: Seed) {}

  private remember(key: string, make: (id: string) => Subject): Subject {
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const subject = make(randomUUID());
    this.byKey.set(key, subject);
    this.byId.set(subject.id, subject);
    return subject;
  }

  user(user: SeedUser): Subject {
    return this.remember(`user:${user.username}`, (id) => ({
      id,
      preferredUsername: user.username,
      entityId: user.merchantId,
      name: user.name,
      givenName: user.givenName,
      familyName: user.familyName,
      email: user.email,
      phone: user.phone,
      kind: 'user',
      ...(user.permissions !== undefined ? { permissions: user.permissions } : {}),
      ...(user.locale !== undefined ? { locale: user.locale } : {}),
      ...(user.zoneinfo !== undefined ? { zoneinfo: user.zoneinfo } : {}),
      ...(user.datetimeformat !== undefined ? { datetimeformat: user.datetimeformat } : {}),
    }));
  }

  serviceAccount(clientId: string, merchantId: string | undefined): Subject {
    const merchant = this.seed.merchants.find((m) => m.merchantId === merchantId);
    return this.remember(`client:${clientId}`, (id) => ({
      id,
      preferredUsername: `service-account-${clientId}`,
      entityId: merchantId,
      name: merchant?.merchantName,
      givenName: undefined,
      familyName: undefined,
      email: undefined,
      phone: undefined,
      kind: 'service-account',
    }));
  }

  byUuid(id: string): Subject | undefined {
    return this.byId.get(id);
  }
}
