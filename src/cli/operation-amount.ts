import { AgentError, ErrorCodes } from '../core/index.js';
import { formatMajor, parseMoney } from '../payments/index.js';
import type { LocalApiClient } from '../ui/index.js';

/**
 * The amount of a cancel, refund or capture as the API takes it (major units of the sale's
 * currency). A person may type "5.00" or "5.00 EUR"; a currency other than the sale's is refused.
 * Imported by the commands when they run (it loads the payments folder for the money rules).
 */
export async function operationAmount(
  client: LocalApiClient,
  saleId: string,
  text: string | undefined,
  merchantId?: string,
): Promise<string | undefined> {
  if (text === undefined) return undefined;
  const sale = await client.transaction(saleId, false, merchantId);
  const money = parseMoney(text, sale.currency);
  if (money.currency !== sale.currency) {
    throw new AgentError(ErrorCodes.AMOUNT_INVALID, `sale ${saleId} is in ${sale.currency}, not ${money.currency}`);
  }
  return formatMajor(money.amount, money.currency);
}
