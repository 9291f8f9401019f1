/**
 * The keyboard's focus follows what opens over the page (docs/counter-page.md, "Local API
 * and counter page", accessibility): a sheet, the menu or the offline panel, once shown,
 * takes the focus itself (not its first control: an input would bring up a touch screen's
 * keyboard), so Tab goes on inside it; once closed, the focus goes back to the control that
 * opened it, when the focus was left inside the panel. Opened from another panel (end of day
 * from the menu), the control that opened that one is the way back.
 */
export function followPanels(ids: readonly string[]): void {
  const openers = new Map<HTMLElement, HTMLElement>();
  const panels = ids.map((id) => document.getElementById(id)).filter((p): p is HTMLElement => p !== null);
  for (const panel of panels) {
    panel.tabIndex = -1;
    new MutationObserver(() => {
      const active = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      if (!panel.hidden) {
        if (active === null || panel.contains(active)) return;
        const from = panels.find((p) => p !== panel && p.contains(active));
        openers.set(panel, (from !== undefined ? openers.get(from) : undefined) ?? active);
        panel.focus({ preventScroll: true });
        return;
      }
      const back = openers.get(panel);
      openers.delete(panel);
      if (back !== undefined && (active === null || active === document.body || panel.contains(active)))
        back.focus({ preventScroll: true });
    }).observe(panel, { attributes: true, attributeFilter: ['hidden'] });
  }
}
