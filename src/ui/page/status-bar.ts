import { ApiError } from './api.js';
import { byId, el, show } from './dom.js';
import type { PageContext } from './page-context.js';
import { money, t } from './i18n.js';
import { platformBadgeText } from './texts.js';
import type { AgentStatus, DeviceStatus, OfflineLevels } from './types.js';

/** The sale form's currency as the status bar reads and presets it (the sale entry owns the field). */
export interface CurrencyField {
  /** The currency chosen now: the offline badge states its limits in it. */
  currency(): string;
  /** The agent's default currency, taken unless staff picked one. */
  offerDefaultCurrency(code: string): void;
}

/**
 * The header: platform reachability, the peripherals, the offline badge (its panel is the
 * OfflinePanel's), all from GET /api/v1/status. When the agent itself stops answering (its
 * event stream broke and a request fails too) every badge turns grey and the header says
 * so: a green badge must never outlive the agent that set it (docs/counter-page.md, "Local
 * API and counter page").
 */
export class StatusBar {
  private agentDown = false;
  private streamUp = true;

  constructor(
    private readonly ctx: PageContext,
    private readonly currencyField: CurrencyField,
  ) {}

  /** Loads and renders the status; also asks for the merchants, which may have become known since. */
  async load(): Promise<void> {
    let s: AgentStatus;
    try {
      s = await this.ctx.api.status();
    } catch (err) {
      if (!this.streamUp && err instanceof ApiError && err.status === 0) this.showAgentDown();
      throw err;
    }
    this.showAgentBack();
    // The currency first: the offline badge states its limits in it.
    this.currencyField.offerDefaultCurrency(s.agent.defaultCurrency);
    this.renderPlatform(s.platform);
    this.renderDevices(s.devices);
    this.renderOffline(s.offline);
    void this.ctx.merchants.load().catch(() => undefined);
  }

  /** Loads in the background; a failure is left for the next event or reload to mend. */
  refresh(): void {
    void this.load().catch(() => undefined);
  }

  /** The event stream's state (LiveUpdates): when it breaks, a request tells whether the agent is gone. */
  streamConnected(connected: boolean): void {
    this.streamUp = connected;
    if (!connected || this.agentDown) this.refresh();
  }

  /** Every badge grey, and the one message that says why nothing on the header can be trusted now. */
  private showAgentDown(): void {
    if (this.agentDown) return;
    this.agentDown = true;
    const bar = document.querySelector<HTMLElement>('header.bar');
    if (bar === null) return;
    bar.dataset.agent = 'down';
    // The platform badge's last word came from the agent that no longer answers.
    byId('platform').textContent = t('status.stale');
    for (const b of Array.from(bar.querySelectorAll<HTMLElement>('.badge'))) {
      b.classList.remove('ok', 'bad', 'warn');
      b.classList.add('off');
    }
    let note = document.getElementById('agent-down');
    if (note === null) {
      note = el('span', 'agent-down', t('status.agentDown'));
      note.id = 'agent-down';
      note.dataset.testid = 'agent-down';
      note.setAttribute('role', 'alert');
      bar.append(note);
    }
    show(note, true);
  }

  private showAgentBack(): void {
    if (!this.agentDown) return;
    this.agentDown = false;
    const bar = document.querySelector<HTMLElement>('header.bar');
    if (bar !== null) {
      bar.dataset.agent = 'up';
      for (const b of Array.from(bar.querySelectorAll<HTMLElement>('.badge.off'))) b.classList.remove('off');
    }
    const note = document.getElementById('agent-down');
    if (note !== null) show(note, false);
  }

  private renderPlatform(p: AgentStatus['platform']): void {
    const b = byId('platform');
    b.textContent = platformBadgeText(p);
    b.className = `badge ${p.online ? 'ok' : p.state === 'unknown' ? '' : 'bad'}`;
    b.dataset.state = p.state ?? (p.online ? 'online' : 'offline');
    b.title = p.online ? t('status.answers') : (p.reason ?? t('status.noAnswer'));
  }

  private renderDevices(devices: DeviceStatus[]): void {
    const box = byId('devices');
    box.replaceChildren(
      ...devices.map((d) => {
        const name =
          d.device === 'reader' || d.device === 'display' || d.device === 'scanner'
            ? t(`device.${d.device}`)
            : d.device;
        const text =
          d.state === 'connected'
            ? t('device.ok', { device: name })
            : t('device.state', { device: name, state: d.state });
        const chip = el(
          'span',
          `badge ${d.state === 'connected' ? 'ok' : d.state === 'disabled' || d.state === 'unknown' ? '' : 'bad'}`,
          text,
        );
        chip.dataset.testid = `device-${d.device}`;
        chip.title = [d.model, d.reason].filter(Boolean).join(' · ');
        return chip;
      }),
    );
  }

  private renderOffline(levels: OfflineLevels | null): void {
    const b = byId<HTMLButtonElement>('offline');
    if (levels === null || (!levels.enabled && levels.count === 0)) {
      show(b, false);
      return;
    }
    const totals = Object.entries(levels.totals)
      .filter(([, v]) => v > 0)
      .map(([c, v]) => money(v, c, levels.totalsText[c] ?? c));
    b.textContent = `${t('offlineBadge.text', { count: levels.count, max: levels.maxCount })}${totals.length ? ` · ${totals.join(', ')}` : ''}`;
    const nearlyFull = levels.count >= levels.maxCount * 0.9;
    b.className = `badge ${levels.needsAttention ? 'bad' : nearlyFull ? 'warn' : levels.count > 0 ? 'warn' : ''}`;
    const currency = this.currencyField.currency();
    const floorMinor = levels.floorLimits?.[currency];
    const maxMinor = levels.maxTotal[currency];
    const perSale =
      floorMinor !== undefined
        ? t('offlineBadge.perSale', { amount: money(floorMinor, currency, levels.floorLimitsText[currency]) })
        : '';
    const limits =
      maxMinor !== undefined
        ? t('offlineBadge.limitsTotal', {
            perSale,
            max: levels.maxCount,
            total: money(maxMinor, currency, levels.maxTotalText[currency]),
          })
        : t('offlineBadge.limits', { perSale, max: levels.maxCount });
    b.title = `${levels.enabled ? t('offlineBadge.enabled', { limits }) : t('offlineBadge.disabled')}${levels.lastError ? t('offlineBadge.lastError', { error: levels.lastError }) : ''}${levels.needsAttention ? t('offlineBadge.attention', { count: levels.needsAttention }) : ''}${t('offlineBadge.tap')}`;
    b.dataset.limits = limits;
    show(b, true);
  }
}
