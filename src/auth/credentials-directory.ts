import { ErrorCodes, describeError, isAgentError, type Clock, type Logger } from '../core/index.js';
import type { DispatcherSource } from '../platform/index.js';
import {
  fetchMerchantCredentials,
  findMerchant,
  selectMerchant,
  summary,
  type MerchantCredentials,
} from './merchant-credentials.js';
import type { MerchantStatus } from './auth-status.js';
import type { MerchantSlot } from './sources.js';

export interface CredentialsDirectoryOptions {
  authUrl: string;
  dispatchers: DispatcherSource;
  clock: Clock;
  log: Logger;
  /** auth.merchantId: the default merchant when the terminal serves several. */
  merchantId: string | undefined;
  /** The terminal whose merchants are read (changes with the device certificate). */
  serialNumber: () => string;
  /** Throws when no request may go out (our certificate is outside its validity window). */
  guard: () => void;
}

/**
 * The terminal's merchants (docs/platform-contract.md, "Tokens"): read once, read again when a secret is
 * renewed, with one read in flight at a time. Keeps one slot per merchant, so token
 * sources see renewed secrets in place, the default merchant, and the platform merchant
 * ids (entityId) learnt from tokens.
 */
export class CredentialsDirectory {
  private list: MerchantCredentials[] | undefined;
  private readonly slots = new Map<string, MerchantSlot>();
  /** entityId (merchant id) → clientId, learnt from tokens. */
  private readonly merchantIds = new Map<string, string>();
  private defaultId: string | undefined;
  private inflight: Promise<void> | undefined;
  private error: { code: string; message: string; at: string } | undefined;

  constructor(private readonly opts: CredentialsDirectoryOptions) {}

  /** The merchants as last read; undefined before the first successful read. */
  get merchants(): readonly MerchantCredentials[] | undefined {
    return this.list;
  }

  /** clientId of the default merchant, once the credentials were read. */
  get defaultClientId(): string | undefined {
    return this.defaultId;
  }

  /** Failure of the last read, if it failed. */
  get lastError(): { code: string; message: string; at: string } | undefined {
    return this.error;
  }

  slot(clientId: string): MerchantSlot | undefined {
    return this.slots.get(clientId);
  }

  /** Merchant credentials (docs/platform-contract.md, "Endpoints"); one read in flight at a time. */
  load(): Promise<void> {
    if (this.inflight !== undefined) return this.inflight;
    const p = (async () => {
      // Never settled before `inflight` is set below: a guard that throws at once would
      // otherwise leave its rejection in `inflight` for good, and no read would go out again.
      await Promise.resolve();
      try {
        this.opts.guard();
        const list = await fetchMerchantCredentials({
          authUrl: this.opts.authUrl,
          serialNumber: this.opts.serialNumber(),
          dispatchers: this.opts.dispatchers,
          clock: this.opts.clock,
        });
        this.error = undefined;
        this.apply(list);
      } catch (err) {
        this.error = {
          code: isAgentError(err) ? err.code : ErrorCodes.INTERNAL,
          message: describeError(err),
          at: new Date(this.opts.clock.wall()).toISOString(),
        };
        throw err;
      } finally {
        this.inflight = undefined;
      }
    })();
    this.inflight = p;
    return p;
  }

  /** A token showed which platform merchant id (entityId) a client acts for. */
  learn(merchantId: string, clientId: string): void {
    this.merchantIds.set(merchantId, clientId);
  }

  /** clientId learnt for a platform merchant id. */
  clientIdOf(merchantId: string): string | undefined {
    return this.merchantIds.get(merchantId);
  }

  /** Merchants whose platform merchant id no token has shown yet. */
  unseen(): MerchantCredentials[] {
    const seen = new Set(this.merchantIds.values());
    return (this.list ?? []).filter((m) => !seen.has(m.clientId));
  }

  /** clientId of `wanted` (clientId, merchant name or a platform merchant id already learnt). */
  resolve(wanted: string): string | undefined {
    const byCreds = this.list === undefined ? undefined : findMerchant(this.list, wanted);
    return byCreds?.clientId ?? this.merchantIds.get(wanted);
  }

  /** The terminal's merchants, without secrets. */
  statuses(): MerchantStatus[] {
    const byClient = new Map([...this.merchantIds].map(([entity, client]) => [client, entity]));
    return (this.list ?? []).map((m) => {
      const merchantId = byClient.get(m.clientId);
      return {
        ...summary(m),
        ...(merchantId !== undefined ? { merchantId } : {}),
        default: m.clientId === this.defaultId,
      };
    });
  }

  /** Another terminal: its merchants must be read again. */
  forget(): void {
    this.list = undefined;
    this.slots.clear();
    this.merchantIds.clear();
    this.defaultId = undefined;
  }

  private apply(list: MerchantCredentials[]): void {
    const first = this.list === undefined;
    this.list = list;
    for (const m of list) {
      const slot = this.slots.get(m.clientId);
      if (slot === undefined) this.slots.set(m.clientId, { credentials: m });
      else slot.credentials = m;
    }
    if (first) {
      const { merchant, ambiguous } = selectMerchant(list, this.opts.merchantId);
      this.defaultId = merchant.clientId;
      const names = list.map((m) => `${m.merchantName} [${m.clientId}]`).join(', ');
      if (ambiguous) {
        this.opts.log.warn(
          { merchants: list.map(summary) },
          `terminal serves several merchants (${names}); using ${merchant.merchantName} by default: set auth.merchantId to choose`,
        );
      } else {
        this.opts.log.info(
          { merchants: list.map(summary), default: merchant.clientId },
          `merchant credentials read: ${names}`,
        );
      }
    }
  }
}
