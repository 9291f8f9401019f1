import { showFailure } from './error-banner.js';
import { byId, el, show } from './dom.js';
import { dateTimeOf, t } from './i18n.js';
import type { PageContext } from './page-context.js';
import type { PairingOfferAnswer, Register, RegistersAnswer } from './types.js';

/**
 * Cash registers on the store network (#registers; docs/registers.md), for a clerk with the
 * registers permission: whether the listener is on, with its URL and the certificate
 * fingerprint a register pins; the paired registers, each revoked after a confirmation;
 * "Pair a register", which shows the one-time code large with its expiry counting down.
 * With the listener off it says which setting turns it on (api.lan.enabled).
 */
export class RegistersPanel {
  private answer: RegistersAnswer | undefined;
  private offer: PairingOfferAnswer['pairing'] | undefined;
  private countdown: number | undefined;
  private confirming: string | undefined;
  private ticks = 0;

  constructor(private readonly ctx: PageContext) {}

  init(): void {
    byId('registers-close').addEventListener('click', () => this.close());
    byId('registers-pair').addEventListener('click', () => void this.pair());
  }

  async open(): Promise<void> {
    this.message('');
    show(byId('registers'), true);
    await this.load();
  }

  private close(): void {
    this.stopCountdown();
    this.offer = undefined;
    this.confirming = undefined;
    show(byId('registers'), false);
  }

  private async load(): Promise<void> {
    try {
      this.answer = await this.ctx.api.registers();
      this.render();
    } catch (err) {
      this.failure(err);
    }
  }

  private message(text: string, error = false): void {
    const m = byId('registers-message');
    m.textContent = text;
    m.className = `sheet-note${error ? ' error' : ''}`;
  }

  private failure(err: unknown): void {
    this.message('', true);
    showFailure(byId('registers-message'), err, 'registers-error-details');
  }

  private render(): void {
    const a = this.answer;
    if (a === undefined) return;
    const lan = byId('registers-lan');
    lan.dataset.enabled = String(a.lan.enabled);
    if (a.lan.enabled) {
      lan.replaceChildren(
        el('div', '', t('registers.on', { url: a.lan.url ?? '' })),
        el('div', 'fingerprint-label', t('registers.fingerprint')),
        this.fingerprint(a.lan.fingerprint ?? ''),
      );
    } else {
      lan.replaceChildren(el('div', 'error', t('registers.off')));
    }
    byId<HTMLButtonElement>('registers-pair').disabled = !a.lan.enabled;
    if (this.offer !== undefined && a.pairing === undefined && Date.parse(this.offer.expiresAt) > Date.now()) {
      // The code is no longer on offer before it expired: a register redeemed it.
      this.offer = undefined;
      this.stopCountdown();
      this.message(t('registers.pairedNow'));
    }
    this.renderOffer();
    const ol = byId('registers-list');
    if (a.registers.length === 0) {
      ol.replaceChildren(el('li', 'empty', t('registers.none')));
      return;
    }
    ol.replaceChildren(...a.registers.map((r) => this.row(r)));
  }

  private fingerprint(text: string): HTMLElement {
    const f = el('code', 'fingerprint', text);
    f.dataset.testid = 'registers-fingerprint';
    return f;
  }

  private row(r: Register): HTMLElement {
    const li = el('li');
    li.dataset.testid = `register-${r.id}`;
    li.dataset.revoked = String(r.revokedAt !== undefined);
    const when = dateTimeOf;
    const lines = [t('registers.paired', { when: when(r.pairedAt), by: r.pairedBy })];
    if (r.lastSeenAt !== undefined) lines.push(t('registers.lastSeen', { when: when(r.lastSeenAt) }));
    if (r.revokedAt !== undefined) lines.push(t('registers.revokedAt', { when: when(r.revokedAt) }));
    const info = el('div', 'register-info');
    info.append(el('div', 'register-name', r.name), el('div', 'register-detail', lines.join(' · ')));
    li.append(info);
    if (r.revokedAt !== undefined) return li;
    if (this.confirming === r.id) {
      const box = el('div', 'ops-confirm');
      box.dataset.testid = 'register-confirm';
      const yes = el('button', 'confirm-yes', t('registers.yesRevoke'));
      yes.type = 'button';
      yes.dataset.testid = 'register-confirm-yes';
      yes.addEventListener('click', () => void this.revoke(r));
      const no = el('button', 'confirm-no', t('registers.no'));
      no.type = 'button';
      no.dataset.testid = 'register-confirm-no';
      no.addEventListener('click', () => {
        this.confirming = undefined;
        this.render();
      });
      box.append(el('span', 'confirm-text', t('registers.confirm', { name: r.name })), yes, no);
      li.append(box);
    } else {
      const revoke = el('button', 'register-revoke', t('registers.revoke'));
      revoke.type = 'button';
      revoke.dataset.testid = `register-revoke-${r.id}`;
      revoke.addEventListener('click', () => {
        this.confirming = r.id;
        this.render();
      });
      li.append(revoke);
    }
    return li;
  }

  private async revoke(r: Register): Promise<void> {
    this.confirming = undefined;
    try {
      await this.ctx.api.revokeRegister(r.id);
      this.message(t('registers.revoked', { name: r.name }));
    } catch (err) {
      this.failure(err);
    }
    await this.load();
  }

  private async pair(): Promise<void> {
    try {
      this.offer = await this.ctx.api.startPairing();
      this.message('');
      this.stopCountdown();
      this.ticks = 0;
      // The countdown every second; the list every third, so the register shows once it paired.
      this.countdown = window.setInterval(() => {
        this.renderOffer();
        if (++this.ticks % 3 === 0) void this.load();
      }, 1000);
      this.renderOffer();
    } catch (err) {
      this.failure(err);
    }
  }

  /** The code on offer, large, with the seconds it has left; gone when it expired. */
  private renderOffer(): void {
    const box = byId('registers-code');
    const o = this.offer;
    if (o === undefined) {
      show(box, false);
      return;
    }
    const left = Math.max(0, Math.ceil((Date.parse(o.expiresAt) - Date.now()) / 1000));
    const code = el('div', 'pairing-code', left > 0 ? o.code : '—');
    code.dataset.testid = 'pairing-code';
    const expiry = el(
      'div',
      'pairing-expiry',
      left > 0 ? t('registers.expiresIn', { seconds: left }) : t('registers.expired'),
    );
    expiry.dataset.testid = 'pairing-expiry';
    box.replaceChildren(
      el('div', 'fingerprint-label', t('registers.codeHint', { url: o.url })),
      code,
      expiry,
      el('div', 'fingerprint-label', t('registers.fingerprint')),
      this.fingerprint(o.fingerprint),
    );
    box.dataset.live = String(left > 0);
    show(box, true);
    if (left === 0) this.stopCountdown();
  }

  private stopCountdown(): void {
    if (this.countdown !== undefined) clearInterval(this.countdown);
    this.countdown = undefined;
  }
}
