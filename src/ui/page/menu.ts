import { byId, show } from './dom.js';

export interface MenuHooks {
  onEndOfDay(): void;
  onRegisters(): void;
}

/**
 * The menu (#menu, its button in the head of today's list: the header has no room left at
 * 800x480): end of day for every clerk, cash registers for a clerk with the registers
 * permission (docs/registers.md). It drops down at the top right and closes when an item is
 * chosen, the button is tapped again, or anywhere else is tapped.
 */
export class Menu {
  constructor(private readonly hooks: MenuHooks) {}

  init(canRegisters: boolean): void {
    const button = byId('menu-open');
    show(button, true);
    show(byId('menu-registers'), canRegisters);
    button.addEventListener('click', () => this.toggle(byId('menu').hidden));
    byId('menu-eod').addEventListener('click', () => {
      this.toggle(false);
      this.hooks.onEndOfDay();
    });
    byId('menu-registers').addEventListener('click', () => {
      this.toggle(false);
      this.hooks.onRegisters();
    });
    // A tap anywhere else closes it, as a drop-down does.
    document.addEventListener('click', (e) => {
      const target = e.target as Node | null;
      if (!byId('menu').hidden && target !== null && !byId('menu').contains(target) && !button.contains(target))
        this.toggle(false);
    });
  }

  private toggle(open: boolean): void {
    show(byId('menu'), open);
    byId('menu-open').setAttribute('aria-expanded', String(open));
  }
}
