import type { ReceiptMerchant } from './types.js';

/**
 * The merchant a journal row belongs to, by name: the row keeps what the sale named (a
 * client id, the merchant's name or its platform id, or nothing for the default
 * merchant). `id` is the client id (stable from the first start: the report groups by it),
 * `platformId` the platform's merchant id once a token named it. Unknown merchants (credentials not read yet) keep the id as their name.
 */
export function merchantOf(
  merchantId: string | undefined,
  merchants: readonly ReceiptMerchant[],
): { id: string | null; name: string | null; platformId: string | null } {
  const found =
    merchantId === undefined
      ? merchants.find((m) => m.default)
      : merchants.find(
          (m) => m.clientId === merchantId || m.merchantName === merchantId || m.merchantId === merchantId,
        );
  if (found !== undefined)
    return { id: found.clientId, name: found.merchantName, platformId: found.merchantId ?? null };
  return { id: merchantId ?? null, name: merchantId ?? null, platformId: null };
}
