import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { AgentError, ErrorCodes, type TimeSource } from '../../core/index.js';
import type { RegisterStore, RegisterView } from './register-store.js';

/** What the clerk reads out to the register's operator. */
export interface PairingOffer {
  /** Eight digits, shown as two groups of four. */
  code: string;
  expiresAt: string;
}

export interface PairingLimits {
  codeTtlMs: number;
  /** Wrong codes (from anywhere) after which the code on offer is withdrawn. */
  wrongPerCode: number;
  /** Wrong codes one address may try within `addressWindowMs`. */
  wrongPerAddress: number;
  addressWindowMs: number;
}

export const DEFAULT_PAIRING_LIMITS: PairingLimits = {
  codeTtlMs: 120_000,
  wrongPerCode: 5,
  addressWindowMs: 600_000,
  wrongPerAddress: 10,
};

/** Addresses remembered at most: a flood of addresses cannot grow memory without end. */
const MAX_ADDRESSES = 1_000;

function digest(code: string): Buffer {
  return createHash('sha256').update(code).digest();
}

function normalise(code: string): string {
  return code.replace(/[\s-]/g, '');
}

/**
 * One-time pairing codes (docs/registers.md, "Pairing"): the clerk starts pairing on the
 * page or the CLI and reads out a code that lasts `codeTtlMs`; the register exchanges it
 * once for its own API key. With 10^8 codes, five wrong tries per code and ten per address
 * in ten minutes, guessing is hopeless; a code is withdrawn after its fifth wrong try and
 * the clerk starts again.
 */
export class PairingDesk {
  private offer: { digest: Buffer; expiresAtMono: number; expiresAt: string; by: string; wrong: number } | undefined;
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly store: RegisterStore,
    private readonly clock: TimeSource,
    private readonly limits: PairingLimits = DEFAULT_PAIRING_LIMITS,
  ) {}

  /** A new code, replacing any code on offer. */
  start(by: string): PairingOffer {
    const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
    const expiresAt = new Date(this.clock.wall() + this.limits.codeTtlMs).toISOString();
    this.offer = {
      digest: digest(code),
      expiresAtMono: this.clock.mono() + this.limits.codeTtlMs,
      expiresAt,
      by,
      wrong: 0,
    };
    return { code: `${code.slice(0, 4)} ${code.slice(4)}`, expiresAt };
  }

  /** Whether a code is on offer now (the page shows it until it is used or ends). */
  pending(): { expiresAt: string } | undefined {
    if (this.offer === undefined || this.clock.mono() >= this.offer.expiresAtMono) return undefined;
    return { expiresAt: this.offer.expiresAt };
  }

  cancel(): void {
    this.offer = undefined;
  }

  private recentFailures(address: string): number[] {
    const since = this.clock.mono() - this.limits.addressWindowMs;
    const recent = (this.failures.get(address) ?? []).filter((t) => t > since);
    if (recent.length === 0) this.failures.delete(address);
    else this.failures.set(address, recent);
    return recent;
  }

  private noteFailure(address: string): void {
    if (!this.failures.has(address) && this.failures.size >= MAX_ADDRESSES) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    this.failures.set(address, [...this.recentFailures(address), this.clock.mono()]);
  }

  /** Exchanges a code for a new register and its API key, or refuses (wrong, used, expired, throttled). */
  redeem(code: string, name: string, address: string): { register: RegisterView; apiKey: string } {
    const recent = this.recentFailures(address);
    if (recent.length >= this.limits.wrongPerAddress) {
      const retryS = Math.max(
        1,
        Math.ceil(((recent[0] ?? 0) + this.limits.addressWindowMs - this.clock.mono()) / 1000),
      );
      throw new AgentError(
        ErrorCodes.LAN_PAIRING_THROTTLED,
        `too many wrong pairing codes from this address: try again in ${retryS} s`,
        { details: { retryAfterSeconds: retryS } },
      );
    }
    const offer = this.offer;
    if (offer === undefined || this.clock.mono() >= offer.expiresAtMono) {
      this.offer = undefined;
      this.noteFailure(address);
      throw new AgentError(
        ErrorCodes.LAN_PAIRING_REFUSED,
        'no pairing code is on offer or it has expired: start pairing on the terminal and enter the new code',
      );
    }
    if (!timingSafeEqual(digest(normalise(code)), offer.digest)) {
      this.noteFailure(address);
      offer.wrong += 1;
      if (offer.wrong >= this.limits.wrongPerCode) {
        this.offer = undefined;
        throw new AgentError(
          ErrorCodes.LAN_PAIRING_REFUSED,
          'wrong pairing code; the code was withdrawn after too many wrong tries: start pairing on the terminal again',
        );
      }
      throw new AgentError(ErrorCodes.LAN_PAIRING_REFUSED, 'wrong pairing code: check the code shown on the terminal');
    }
    // One-time: the code is gone before the register exists, so a replay finds nothing.
    this.offer = undefined;
    return this.store.add(name, offer.by);
  }
}
