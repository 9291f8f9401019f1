import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PairingDesk } from '../../../src/ui/lan/pairing.js';
import { RegisterStore, registersFile } from '../../../src/ui/lan/register-store.js';
import { ErrorCodes } from '../../../src/core/errors.js';
import { errorOf } from '../../helpers/agent-error.js';
import { tempDir } from '../../helpers/temp-dir.js';

function expectAgentError(fn: () => unknown, code: string, message?: RegExp): ReturnType<typeof errorOf> {
  const err = errorOf(fn);
  expect(err.code).toBe(code);
  if (message !== undefined) expect(err.message).toMatch(message);
  return err;
}

class HandClock {
  wallMs = Date.parse('2026-11-26T09:00:00Z');
  monoMs = 1_000;
  wall(): number {
    return this.wallMs;
  }
  mono(): number {
    return this.monoMs;
  }
  advance(ms: number): void {
    this.wallMs += ms;
    this.monoMs += ms;
  }
}

const limits = { codeTtlMs: 120_000, wrongPerCode: 5, wrongPerAddress: 10, addressWindowMs: 600_000 };

describe('pairing a cash register', () => {
  const dirs: Array<() => void> = [];
  afterEach(() => dirs.splice(0).forEach((c) => c()));

  function desk(): { desk: PairingDesk; store: RegisterStore; clock: HandClock; file: string } {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const clock = new HandClock();
    const file = registersFile(tmp.dir);
    const store = new RegisterStore(file, clock);
    return { desk: new PairingDesk(store, clock, limits), store, clock, file };
  }

  it('exchanges the code on offer once for a key that authenticates the new register', () => {
    const { desk: d, store } = desk();
    const offer = d.start('staff1');
    expect(offer.code).toMatch(/^\d{4} \d{4}$/);
    const paired = d.redeem(offer.code.replace(' ', '-'), 'Till 1', '192.0.2.7');
    expect(paired.register).toMatchObject({ name: 'Till 1', pairedBy: 'staff1' });
    expect(store.authenticate(paired.apiKey)?.id).toBe(paired.register.id);
    // One-time: the same code again pairs nothing.
    expectAgentError(
      () => d.redeem(offer.code, 'Till 2', '192.0.2.7'),
      ErrorCodes.LAN_PAIRING_REFUSED,
      /no pairing code is on offer/,
    );
    expect(store.list()).toHaveLength(1);
  });

  it('refuses a code after it expired', () => {
    const { desk: d, clock } = desk();
    const offer = d.start('cli');
    clock.advance(120_000);
    expectAgentError(() => d.redeem(offer.code, 'Till', '192.0.2.7'), ErrorCodes.LAN_PAIRING_REFUSED, /expired/);
    expect(d.pending()).toBeUndefined();
  });

  it('withdraws the code after five wrong tries, so the right one no longer works', () => {
    const { desk: d } = desk();
    const offer = d.start('cli');
    const wrong = offer.code === '0000 0000' ? '1111 1111' : '0000 0000';
    for (let i = 0; i < 4; i++)
      expectAgentError(
        () => d.redeem(wrong, 'Till', `192.0.2.${i + 10}`),
        ErrorCodes.LAN_PAIRING_REFUSED,
        /wrong pairing code: check/,
      );
    expectAgentError(() => d.redeem(wrong, 'Till', '192.0.2.99'), ErrorCodes.LAN_PAIRING_REFUSED, /withdrawn/);
    expectAgentError(
      () => d.redeem(offer.code, 'Till', '192.0.2.1'),
      ErrorCodes.LAN_PAIRING_REFUSED,
      /no pairing code is on offer/,
    );
  });

  it('throttles an address after ten wrong codes in ten minutes, even with fresh codes on offer', () => {
    const { desk: d, clock } = desk();
    for (let round = 0; round < 3; round++) {
      const offer = d.start('cli');
      const wrong = offer.code === '0000 0000' ? '1111 1111' : '0000 0000';
      for (let i = 0; i < 4 && round * 4 + i < 10; i++)
        expectAgentError(() => d.redeem(wrong, 'Till', '192.0.2.50'), ErrorCodes.LAN_PAIRING_REFUSED);
    }
    const offer = d.start('cli');
    const err = expectAgentError(
      () => d.redeem(offer.code, 'Till', '192.0.2.50'),
      ErrorCodes.LAN_PAIRING_THROTTLED,
      /try again in \d+ s/,
    );
    expect(err.details?.retryAfterSeconds).toBeGreaterThan(0);
    // Another address still pairs with the same code.
    expect(d.redeem(offer.code, 'Till', '192.0.2.51').register.name).toBe('Till');
    clock.advance(600_001);
    const again = d.start('cli');
    expect(d.redeem(again.code, 'Till 2', '192.0.2.50').register.name).toBe('Till 2');
  });

  it('keeps only a hash of the key on disk, in a 0600 file, and survives a restart', () => {
    const { desk: d, file, clock } = desk();
    const paired = d.redeem(d.start('cli').code, 'Till 1', '192.0.2.7');
    const secret = paired.apiKey.slice(paired.apiKey.indexOf('.') + 1);
    const bytes = readFileSync(file);
    expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(bytes.includes(Buffer.from(paired.apiKey))).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const reopened = new RegisterStore(file, clock);
    expect(reopened.authenticate(paired.apiKey)?.name).toBe('Till 1');
  });

  it('refuses a revoked key, a key with another secret and malformed keys', () => {
    const { desk: d, store } = desk();
    const paired = d.redeem(d.start('cli').code, 'Till 1', '192.0.2.7');
    const [prefix] = paired.apiKey.split('.');
    expect(store.authenticate(`${prefix}.${'A'.repeat(43)}`)).toBeUndefined();
    expect(store.authenticate('Bearer')).toBeUndefined();
    expect(store.authenticate(`${prefix}`)).toBeUndefined();
    store.revoke(paired.register.id);
    expect(store.authenticate(paired.apiKey)).toBeUndefined();
    expect(store.list()[0]?.revokedAt).toBeDefined();
    expectAgentError(() => store.revoke('no-such-register'), ErrorCodes.API_NOT_FOUND, /registers list/);
  });

  it('names the damaged registers file and what to do', () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const file = registersFile(tmp.dir);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{"registers": [{"id": 1}]}');
    expectAgentError(
      () => new RegisterStore(file, new HandClock()),
      ErrorCodes.CONFIG_INVALID,
      new RegExp(`${join('lan', 'registers.json')} is damaged: move it away`),
    );
  });
});
