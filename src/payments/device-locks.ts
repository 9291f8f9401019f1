import { AgentError, ErrorCodes } from '../core/index.js';

/** The devices a sale holds while it runs: the card reader, the barcode scanner, the customer display. */
export type SaleDevice = 'reader' | 'scanner' | 'display';

/**
 * One sale at a time per device (docs/architecture.md, "Flows"): a sale takes the device
 * it needs when it starts and gives it back when the device has answered (the reader, the
 * scanner) or when the sale is final (the display, which keeps showing the QR until then).
 */
export class DeviceLocks {
  private readonly holders: Record<SaleDevice, string | undefined> = {
    reader: undefined,
    scanner: undefined,
    display: undefined,
  };

  /** Throws PAYMENT_BUSY when another sale holds `device`. */
  requireFree(device: SaleDevice): void {
    const holder = this.holders[device];
    if (holder !== undefined) {
      throw new AgentError(
        ErrorCodes.PAYMENT_BUSY,
        `another sale (${holder}) is using the ${device}: finish or abort it first`,
        {
          details: { clientTransactionId: holder },
        },
      );
    }
  }

  take(device: SaleDevice, clientTransactionId: string): void {
    this.holders[device] = clientTransactionId;
  }

  holds(device: SaleDevice, clientTransactionId: string): boolean {
    return this.holders[device] === clientTransactionId;
  }

  /** Gives `device` back if `clientTransactionId` holds it. */
  release(device: SaleDevice, clientTransactionId: string): void {
    if (this.holders[device] === clientTransactionId) this.holders[device] = undefined;
  }
}
