import { createRequire } from 'node:module';

type QrCodeLib = typeof import('qrcode');
let lib: QrCodeLib | undefined;

/**
 * The qrcode package, loaded the first time a QR is drawn (a wallet sale) instead of at
 * start: 3.5 MiB of resident memory a terminal without wallet sales never needs (docs/performance.md,
 * "Quality targets", idle RSS).
 */
export function qrCode(): QrCodeLib {
  lib ??= createRequire(import.meta.url)('qrcode') as QrCodeLib;
  return lib;
}
