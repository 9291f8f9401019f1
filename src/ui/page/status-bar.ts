import { byId, el, show } from './dom.js';
import type { PageContext } from './page-context.js';
import type { DeviceStatus, OfflineLevels } from './types.js';

/** The sale form's currency as the status bar reads and presets it (the sale entry owns the field). */
export interface CurrencyField {
  /** The currency chosen now: the offline badge states its limits in it. */
  currency(): string;
  /** The agent's default currency, taken unless staff picked one. */
  offerDefaultCurrency(code: string): void;
}

/**
 * The header: platform reachability, the peripherals, the offline badge (its panel is the
 * OfflinePanel's), all from GET /api/status.
 */
export class StatusBar {
  constructor(
    private readonly ctx: PageContext,
    private readonly currencyField: CurrencyField,
  ) {}

  /** Loads and renders the status; also asks for the merchants, which may have become known since. */
  async load(): Promise<void> {
    const s = await this.ctx.api.status();
    this.renderPlatform(s.platform.online);
    this.renderDevices(s.devices);
    this.renderOffline(s.offline);
    void this.ctx.merchants.load().catch(() => undefined);
    this.currencyField.offerDefaultCurrency(s.agent.defaultCurrency);
  }

  /** Loads in the background; a failure is left for the next event or reload to mend. */
  refresh(): void {
    void this.load().catch(() => undefined);
  }

  private renderPlatform(online: boolean): void {
    const b = byId('platform');
    b.textContent = online ? 'online' : 'platform offline';
    b.className = `badge ${online ? 'ok' : 'bad'}`;
  }

  private renderDevices(devices: DeviceStatus[]): void {
    const box = byId('devices');
    box.replaceChildren(
      ...devices.map((d) => {
        const chip = el('span', `badge ${d.state === 'connected' ? 'ok' : d.state === 'disabled' || d.state === 'unknown' ? '' : 'bad'}`, `${d.device} ${d.state === 'connected' ? '✓' : d.state}`);
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
      .map(([c]) => levels.totalsText[c] ?? c);
    b.textContent = `offline ${levels.count}/${levels.maxCount}${totals.length ? ` · ${totals.join(', ')}` : ''}`;
    const nearlyFull = levels.count >= levels.maxCount * 0.9;
    b.className = `badge ${levels.needsAttention ? 'bad' : nearlyFull ? 'warn' : levels.count > 0 ? 'warn' : ''}`;
    const currency = this.currencyField.currency();
    const floor = levels.floorLimitsText[currency];
    const max = levels.maxTotalText[currency];
    const limits = `${floor ? `up to ${floor} per sale; ` : ''}at most ${levels.maxCount} sales${max ? ` and ${max}` : ''}`;
    b.title = `${levels.enabled ? `Offline card sales ${limits}` : 'Offline sales disabled'}${levels.lastError ? ` · last upload error: ${levels.lastError}` : ''}${levels.needsAttention ? ` · ${levels.needsAttention} need attention` : ''} · tap to see the stored sales`;
    b.dataset.limits = limits;
    show(b, true);
  }
}
