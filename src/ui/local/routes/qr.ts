import { AgentError, ErrorCodes, qrCode } from '../../../core/index.js';
import { sendText } from '../http-io.js';
import type { Router } from '../router.js';
import { noQuerySchema, parseInput, queryObject, transactionIdSchema } from '../../shared/index.js';
import type { RouteDeps } from './deps.js';

/** The wallet QR of a sale drawn as SVG (error correction M, as on the customer display). */
export function registerQrRoute(router: Router, deps: RouteDeps): void {
  router.add('GET', '/api/v1/qr/:id.svg', async (ctx) => {
    parseInput(noQuerySchema, queryObject(ctx.query), 'query');
    const id = transactionIdSchema.safeParse(ctx.params.id);
    if (!id.success) throw new AgentError(ErrorCodes.API_BAD_REQUEST, 'transaction id is invalid');
    const view = await deps.payments.get(id.data);
    if (view.qr === undefined || view.qr.codeValue === '') {
      throw new AgentError(ErrorCodes.API_NOT_FOUND, `transaction ${id.data} has no QR code`);
    }
    const svg = await qrCode().toString(view.qr.codeValue, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    sendText(ctx.res, 200, 'image/svg+xml; charset=utf-8', svg);
    return undefined;
  });
}
