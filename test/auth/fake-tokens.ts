import { randomUUID } from 'node:crypto';
import type { GrantOutcome } from '../../src/auth/token-response.js';
import type { TokenSource } from '../../src/auth/token-manager.js';

const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');

/** An unsigned-looking JWT: the agent decodes claims and never checks the signature. */
export function jwt(claims: Record<string, unknown>): string {
  return `${b64({ typ: 'JWT', alg: 'HS256', kid: 'test' })}.${b64(claims)}.c2lnbmF0dXJl`;
}

export const CLIENT = 'terminal-app-1001';
export const THUMB = 'our-thumbprint-base64url';

export interface IssueOptions {
  clientId?: string;
  thumbprint?: string | null;
  expiresIn?: number;
  refreshToken?: string | null;
  entityId?: string;
  /** Platform clock offset against ours, ms. */
  platformOffsetMs?: number;
  iatOffsetS?: number;
  nbfOffsetS?: number;
  expOverrideS?: number;
  aud?: string | string[];
}

/** A token response as the platform sends it, timed at the current (fake) clock. */
export function issue(o: IssueOptions = {}): GrantOutcome {
  const now = Date.now();
  const platformNow = now + (o.platformOffsetMs ?? 0);
  const iat = Math.floor(platformNow / 1000) + (o.iatOffsetS ?? 0);
  const expiresIn = o.expiresIn ?? 100;
  const clientId = o.clientId ?? CLIENT;
  const thumb = o.thumbprint === undefined ? THUMB : o.thumbprint;
  const serial = randomUUID().slice(0, 8);
  const access = jwt({
    iat,
    nbf: iat + (o.nbfOffsetS ?? 0),
    exp: o.expOverrideS ?? iat + expiresIn,
    jti: `a-${serial}`,
    sub: 'subject',
    azp: clientId,
    aud: o.aud ?? [clientId, 'payment-api'],
    iss: 'https://platform.test/auth/realms/demo',
    scope: 'profile email auth',
    entityId: o.entityId ?? 'm-1001',
    ...(thumb === null ? {} : { cnf: { 'x5t#S256': thumb } }),
  });
  const refresh = o.refreshToken === null ? undefined : (o.refreshToken ?? `refresh-${serial}`);
  return {
    response: {
      access_token: access,
      expires_in: expiresIn,
      refresh_expires_in: 1800,
      ...(refresh !== undefined ? { refresh_token: refresh } : {}),
      token_type: 'Bearer',
      scope: 'profile email auth',
    },
    timing: { dateMs: Math.floor(platformNow / 1000) * 1000, receivedAtMs: now, receivedMono: now },
  };
}

type Step = (() => GrantOutcome | Promise<GrantOutcome>) | Error;

/** A scripted token source: each call takes the next step of its queue, else issues a fresh token. */
export class FakeSource implements TokenSource {
  readonly flow = 'client_credentials' as const;
  readonly calls: string[] = [];
  readonly grants: Step[] = [];
  readonly refreshes: Step[] = [];
  reloads = 0;
  clientIdValue = CLIENT;
  issueOptions: IssueOptions = {};

  clientId(): string {
    return this.clientIdValue;
  }

  grant(): Promise<GrantOutcome> {
    this.calls.push('grant');
    return this.run(this.grants.shift());
  }

  refresh(refreshToken: string): Promise<GrantOutcome> {
    this.calls.push(`refresh:${refreshToken}`);
    return this.run(this.refreshes.shift());
  }

  async reloadCredentials(): Promise<void> {
    this.reloads++;
    this.calls.push('reload');
  }

  private async run(step: Step | undefined): Promise<GrantOutcome> {
    if (step instanceof Error) throw step;
    if (step !== undefined) return step();
    return issue(this.issueOptions);
  }
}

/** A promise resolved from outside: holds a grant in flight. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
