import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCounterSettings, ApiTransaction } from '../../src/ui/shared/wire-types.js';
import { sampleSale } from '../helpers/sample-transaction.js';

// The page's modules are typed for the browser (src/ui/page/tsconfig.json, DOM): loaded by a
// path the test program does not follow, and typed here by what the test calls.
interface TextsModule {
  saleHeadline(t: ApiTransaction): string | undefined;
  outcomeOf(t: ApiTransaction): { text: string; cls: string };
  stateText(t: ApiTransaction): string;
  pendingText(t: ApiTransaction): string;
}
interface I18nModule {
  useSettings(next: ApiCounterSettings, root: unknown): void;
}
const PAGE = '../../src/ui/page';
const { outcomeOf, pendingText, saleHeadline, stateText } = (await import(`${PAGE}/texts.js`)) as TextsModule;
const { useSettings } = (await import(`${PAGE}/i18n.js`)) as I18nModule;

/**
 * The one headline of each state a clerk sees (docs/counter-page.md, "Local API and counter
 * page", headlines): the sale panel's outcome and the list row's words come from the same
 * decision, in English and German, and say only what the view shows exactly.
 */
const sale = sampleSale;

const captured = sale({
  capturedAmount: 1500,
  capturedAmountText: '15.00 EUR',
  platformStatus: 'Captured',
  message: 'approved: 15.00 EUR',
});
const authorized = sale({ platformStatus: 'Accepted', message: 'approved: 15.00 EUR authorized (not captured yet)' });
const stored = sale({
  state: 'offline_stored',
  offline: true,
  message: 'approved offline: 15.00 EUR, stored until the platform is reachable',
});
const sentApproved = sale({
  offline: true,
  capturedAmount: 1500,
  capturedAmountText: '15.00 EUR',
  message: 'approved offline and uploaded: 15.00 EUR',
});
const sentAuthorized = sale({
  offline: true,
  message: 'approved offline and uploaded: 15.00 EUR authorized (not captured yet)',
});
const sentDeclined = sale({ state: 'declined', offline: true, message: 'declined after upload: Insufficient funds' });
const declined = sale({ state: 'declined', message: 'declined: Insufficient funds' });
const reversed = sale({ state: 'reversed', message: 'reversed' });
const reversedRefunded = sale({
  state: 'reversed',
  refundedAmount: 1500,
  refundedAmountText: '15.00 EUR',
  capturedAmount: 1500,
  capturedAmountText: '15.00 EUR',
});
const lookup = sale({
  state: 'in_flight',
  message: 'no answer from the platform: the outcome is being looked up',
  outcomeBeingChecked: true,
});
const waiting = sale({ state: 'in_flight', message: 'sent to the platform' });
const wallet = sale({ method: 'walletA', scenario: 'ConsumerScan', platformStatus: 'Captured' });

const doc = globalThis as { document?: unknown };
const settings = (locale: string) => ({
  locale,
  defaultCurrency: 'EUR',
  currencies: [{ code: 'EUR', digits: 2 }],
  outcomeSeconds: 60,
});
const root = { querySelectorAll: () => [], querySelector: () => null };
function speak(locale: string): void {
  useSettings(settings(locale), root);
}

beforeAll(() => {
  doc.document = { documentElement: {}, title: '' };
});
afterAll(() => {
  speak('en-GB');
  delete doc.document;
});

describe('headline of a sale', () => {
  it('tells captured from authorized by what the platform captured, stored from sent by the state, never by the message', () => {
    expect(saleHeadline(captured)).toBe('approvedCaptured');
    expect(saleHeadline(authorized)).toBe('authorized');
    expect(saleHeadline({ ...authorized, message: 'approved: 15.00 EUR' })).toBe('authorized');
    expect(saleHeadline(wallet)).toBe('approvedPaid');
    expect(saleHeadline(stored)).toBe('storedOffline');
    expect(saleHeadline(sentApproved)).toBe('sentCaptured');
    expect(saleHeadline(sentAuthorized)).toBe('sentAuthorized');
    expect(saleHeadline(sentDeclined)).toBe('sentDeclined');
    expect(saleHeadline({ ...sentDeclined, message: 'something else' })).toBe('sentDeclined');
    expect(saleHeadline(declined)).toBeUndefined();
    expect(saleHeadline(lookup)).toBe('beingChecked');
    expect(saleHeadline(waiting)).toBeUndefined();
    // An authorization cancelled in full is not "capture later".
    expect(saleHeadline({ ...authorized, cancelledAmount: 1500 })).toBeUndefined();
    // "Nothing charged" only for a reversal by cancel; one by refund gave the money back.
    expect(saleHeadline(reversed)).toBe('reversedNothingCharged');
    expect(saleHeadline(reversedRefunded)).toBe('reversedRefunded');
    // Operations have their own words.
    expect(saleHeadline({ ...captured, kind: 'refund' })).toBeUndefined();
  });

  it('English: the panel headline and the row words say the same, with no leftover of an earlier state', () => {
    speak('en-GB');
    expect(outcomeOf(captured).text).toBe('Approved and captured');
    expect(outcomeOf(authorized).text).toBe('Authorized, capture later');
    expect(outcomeOf(stored).text).toBe('Stored offline, will be sent');
    expect(outcomeOf(sentApproved).text).toBe('Sent: approved and captured');
    expect(outcomeOf(sentAuthorized).text).toBe('Sent: authorized, capture later');
    expect(outcomeOf(sentDeclined).text).toBe('Sent: declined after upload');
    expect(outcomeOf(wallet).text).toBe('Approved and paid');
    expect(outcomeOf(declined).text).toBe('Declined');
    expect(outcomeOf(reversed).text).toBe('Reversed, nothing charged');
    expect(outcomeOf(reversedRefunded).text).toBe('Reversed, the amount refunded');
    expect(outcomeOf(lookup).text).toBe('Outcome being checked, do not hand over goods');
    expect(stateText(captured)).toBe('approved and captured');
    expect(stateText(authorized)).toBe('authorized, capture later');
    expect(stateText(stored)).toBe('stored offline, will be sent');
    expect(stateText(sentApproved)).toBe('sent: approved and captured');
    expect(stateText(sentDeclined)).toBe('sent: declined after upload');
    expect(stateText(lookup)).toBe('outcome being checked, do not hand over goods');
    expect(stateText(waiting)).toBe('sending');
    expect(stateText({ ...captured, capturedAmount: 500, capturedAmountText: '5.00 EUR' })).toBe(
      'approved and captured · captured 5.00 EUR',
    );
    expect(stateText({ ...captured, refundedAmount: 1500, refundedAmountText: '15.00 EUR' })).toBe(
      'approved and captured · refunded 15.00 EUR',
    );
    expect(pendingText(lookup)).toBe('No answer from the platform yet: do not repeat the sale.');
    expect(pendingText(waiting)).toBe('Authorizing…');
  });

  it('German: the same headlines in words a German clerk reads', () => {
    speak('de-DE');
    expect(outcomeOf(captured).text).toBe('Genehmigt und gebucht');
    expect(outcomeOf(authorized).text).toBe('Autorisiert, später buchen');
    expect(outcomeOf(stored).text).toBe('Offline gespeichert, wird gesendet');
    expect(outcomeOf(sentApproved).text).toBe('Gesendet: genehmigt und gebucht');
    expect(outcomeOf(sentDeclined).text).toBe('Gesendet: nach dem Hochladen abgelehnt');
    expect(outcomeOf(wallet).text).toBe('Genehmigt und bezahlt');
    expect(outcomeOf(reversed).text).toBe('Rückgängig gemacht, nichts belastet');
    expect(outcomeOf(lookup).text).toBe('Ergebnis wird geprüft, Ware nicht aushändigen');
    expect(stateText(authorized)).toBe('autorisiert, später buchen');
    expect(stateText(sentDeclined)).toBe('gesendet: nach dem Hochladen abgelehnt');
    expect(stateText(waiting)).toBe('wird gesendet');
    expect(pendingText(lookup)).toBe('Noch keine Antwort der Plattform: den Verkauf nicht wiederholen.');
  });
});
