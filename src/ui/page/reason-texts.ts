import type { ApiOperation, ApiRefusalReasonCode } from '../wire-types.js';
import { t } from './i18n.js';
import type { TextKey } from './texts-en.js';

/**
 * The clerk's sentence for each reason code the agent gives an operation it does not allow
 * or refuses when sent (docs/local-api.md, "Allowed operations"), in the page's language:
 * why, and what to do instead. Every code has one (the Record's type), so a new code cannot
 * reach a German clerk in English; the agent's English `reason` is used only when an answer
 * has no code.
 */
export const REASON_TEXT: Readonly<Record<ApiRefusalReasonCode, TextKey>> = {
  NOT_A_SALE: 'reason.notASale',
  NOT_UPLOADED: 'reason.notUploaded',
  NOT_APPROVED: 'reason.notApproved',
  CAPTURED_REFUND_INSTEAD: 'reason.capturedRefundInstead',
  CANCEL_WINDOW_ENDED: 'reason.cancelWindowEnded',
  NOTHING_LEFT_TO_CANCEL: 'reason.nothingLeftToCancel',
  NOT_CAPTURED_CANCEL_INSTEAD: 'reason.notCapturedCancelInstead',
  REFUND_WINDOW_ENDED: 'reason.refundWindowEnded',
  NOTHING_LEFT_TO_REFUND: 'reason.nothingLeftToRefund',
  NOT_A_CARD_SALE: 'reason.notACardSale',
  ALREADY_CAPTURED: 'reason.alreadyCaptured',
  CAPTURE_UNDER_WAY: 'reason.captureUnderWay',
  NOTHING_LEFT_TO_CAPTURE: 'reason.nothingLeftToCapture',
  PLATFORM_NOT_ALLOWED: 'reason.platformNotAllowed',
  APPROVAL_CODE_REQUIRED: 'reason.approvalCodeRequired',
  APPROVAL_CODE_INCORRECT: 'reason.approvalCodeIncorrect',
  AMOUNT_ABOVE_LEFT: 'reason.amountAboveLeft',
};

/** The sentence for a reason code; undefined for a code this page does not know (a newer agent). */
export function reasonCodeText(code: ApiRefusalReasonCode | undefined): string | undefined {
  const key = code !== undefined && Object.hasOwn(REASON_TEXT, code) ? REASON_TEXT[code] : undefined;
  return key !== undefined ? t(key) : undefined;
}

/** Why an operation is not allowed, in the page's language. */
export function reasonText(op: ApiOperation): string {
  return reasonCodeText(op.reasonCode) ?? op.reason ?? t('ops.notAllowed');
}
