import { randomBytes } from 'node:crypto';
import type { CardResult, Peripherals } from '../../src/devices/index.js';

/**
 * Peripherals that answer at once, in process: the card result is in hand as soon as the
 * engine asks. Used to time a sale without the serial protocol's round trips.
 */
export function instantPeripherals(): Peripherals {
  return {
    reader: {
      connected: true,
      info: { model: 'BENCH-INSTANT' },
      readCard: async (): Promise<CardResult> => ({
        outcome: 'ok',
        entryMode: 'ContactlessChip',
        card: {
          maskedPan: '476173******0010',
          scheme: 'visa',
          expiry: '2812',
          // Stand-in for the reader's encrypted card data: random, never meaningful.
          encryptedData: randomBytes(32).toString('hex').toUpperCase(),
          ksn: 'FFFF9876543210E00001',
        },
      }),
      showResult: async () => {},
    },
    display: {
      connected: true,
      showQr: async () => {},
      showText: async () => {},
      clear: async () => {},
    },
    scanner: {
      connected: true,
      nextScan: async () => {
        throw new Error('no scanner in this bench');
      },
    },
  };
}
