import { request } from 'undici';
import { sleep } from './stats.js';

export interface LocalApiTarget {
  url: string;
  localToken: string;
}

/**
 * POST /api/v1/sales as the counter page does; answers the client transaction id. A 409
 * (reader or display still taken by the previous sale) is retried for up to `busyWaitMs`.
 */
export async function postSale(
  target: LocalApiTarget,
  body: Record<string, unknown>,
  busyWaitMs = 5_000,
): Promise<string> {
  const deadline = Date.now() + busyWaitMs;
  for (;;) {
    const res = await request(`${target.url}/api/v1/sales`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.localToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.body.json()) as {
      transaction?: { clientTransactionId?: unknown };
      error?: { code?: unknown };
    };
    if (res.statusCode === 202 && typeof json.transaction?.clientTransactionId === 'string')
      return json.transaction.clientTransactionId;
    if (res.statusCode === 409 && Date.now() < deadline) {
      await sleep(5);
      continue;
    }
    throw new Error(`POST /api/v1/sales answered ${res.statusCode} (${JSON.stringify(json).slice(0, 200)})`);
  }
}
