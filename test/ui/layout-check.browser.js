// The layout check as it runs in the page (test/ui/layout-check.ts reads this file and evaluates it
// there). Plain JavaScript: the test build has no DOM types. Returns the problems found.
({ selector, minTarget }) => {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const vh = document.documentElement.clientHeight;
  const EPS = 0.5;
  const name = (e) => {
    const h = e;
    const id = h.dataset.testid ?? (h.id !== '' ? `#${h.id}` : undefined);
    const text = (h.textContent ?? '').trim().slice(0, 24);
    return `${e.tagName.toLowerCase()}${id !== undefined ? `[${id}]` : ''}${text !== '' ? ` "${text}"` : ''}`;
  };
  const round = (r) => `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}x${Math.round(r.height)}`;
  const rendered = (e) => {
    if (!(e instanceof HTMLElement) || e.getClientRects().length === 0) return false;
    for (let n = e; n !== null; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0) return false;
    }
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  /** The nearest positioned box that floats over the page (fixed, or absolute with a z-index): its own layer. */
  const layerOf = (e) => {
    for (let n = e.parentElement === null ? null : e; n !== null && n !== document.body; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.position === 'fixed' || (s.position === 'absolute' && s.zIndex !== 'auto')) return n;
    }
    return null;
  };
  const scrollerOf = (e) => {
    for (
      let n = e.parentElement;
      n !== null && n !== document.body && n !== document.documentElement;
      n = n.parentElement
    ) {
      const s = getComputedStyle(n);
      if (
        (/(auto|scroll)/.test(s.overflowY) && n.scrollHeight > n.clientHeight) ||
        (/(auto|scroll)/.test(s.overflowX) && n.scrollWidth > n.clientWidth)
      )
        return n;
    }
    return null;
  };
  const clippers = (e, stop) => {
    const out = [];
    for (
      let n = e.parentElement;
      n !== null && n !== stop && n !== document.body && n !== document.documentElement;
      n = n.parentElement
    ) {
      const s = getComputedStyle(n);
      if (s.overflowX !== 'visible' || s.overflowY !== 'visible') out.push(n);
    }
    return out;
  };
  const intersect = (a, b) =>
    new DOMRect(
      Math.max(a.left, b.left),
      Math.max(a.top, b.top),
      Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)),
      Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top)),
    );

  // A label wrapping an input is the input's own tap area; a control inside another (a summary in details) is compared with neither.
  const all = [...document.querySelectorAll(selector)].filter(rendered);
  const shown = [];
  for (const e of all) {
    let r = e.getBoundingClientRect();
    const scroller = scrollerOf(e);
    if (scroller !== null) {
      const sr = scroller.getBoundingClientRect();
      const seen = intersect(r, sr);
      // Scrolled away in a list that scrolls: reachable by scrolling, not on screen now.
      if (seen.width < 1 || seen.height < 1) continue;
      // Partly scrolled away: its size is what it has, its place what is seen.
      if (seen.height < r.height - EPS || seen.width < r.width - EPS) {
        if (r.width < minTarget - EPS || r.height < minTarget - EPS)
          problems.push({
            kind: 'small',
            what: name(e),
            detail: `${Math.round(r.width)}x${Math.round(r.height)} px, at least ${minTarget}x${minTarget}`,
          });
        r = seen;
        shown.push({ e, r, layer: layerOf(e) });
        continue;
      }
    }
    if (r.left < -EPS || r.top < -EPS || r.right > vw + EPS || r.bottom > vh + EPS) {
      problems.push({ kind: 'outside', what: name(e), detail: `at ${round(r)} in a ${vw}x${vh} viewport` });
      continue;
    }
    const cutBy = clippers(e, scroller).find((c) => {
      const cr = c.getBoundingClientRect();
      return r.left < cr.left - EPS || r.top < cr.top - EPS || r.right > cr.right + EPS || r.bottom > cr.bottom + EPS;
    });
    if (cutBy !== undefined) {
      problems.push({
        kind: 'cut',
        what: name(e),
        detail: `at ${round(r)}, cut off by ${name(cutBy)} at ${round(cutBy.getBoundingClientRect())}`,
      });
      continue;
    }
    const cx = r.left + r.width / 2;
    const cy = r.top + r.height / 2;
    const hit = document.elementFromPoint(cx, cy);
    const mine =
      hit !== null && (e.contains(hit) || hit.contains(e) || (hit instanceof HTMLLabelElement && hit.control === e));
    if (!mine) {
      const hitLayer = hit === null ? null : layerOf(hit);
      // Under an overlay stacked above it: not on screen now.
      if (hit !== null && hitLayer !== null && hitLayer !== layerOf(e) && !hitLayer.contains(e)) continue;
      problems.push({
        kind: 'covered',
        what: name(e),
        detail: `its middle shows ${hit === null ? 'nothing' : name(hit)}`,
      });
      continue;
    }
    if (r.width < minTarget - EPS || r.height < minTarget - EPS)
      problems.push({
        kind: 'small',
        what: name(e),
        detail: `${Math.round(r.width)}x${Math.round(r.height)} px, at least ${minTarget}x${minTarget}`,
      });
    // A label that does not fit its button or badge is cut or spills over its neighbours.
    if (
      e.matches('button, .badge, summary') &&
      (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
    ) {
      problems.push({
        kind: 'clipped',
        what: name(e),
        detail: `its text needs ${e.scrollWidth}x${e.scrollHeight} px, has ${e.clientWidth}x${e.clientHeight}`,
      });
    }
    shown.push({ e, r, layer: layerOf(e) });
  }
  for (let i = 0; i < shown.length; i++) {
    for (let j = i + 1; j < shown.length; j++) {
      const a = shown[i];
      const b = shown[j];
      if (a.layer !== b.layer || a.e.contains(b.e) || b.e.contains(a.e)) continue;
      const o = intersect(a.r, b.r);
      if (o.width > 1 && o.height > 1)
        problems.push({
          kind: 'overlap',
          what: name(a.e),
          detail: `overlaps ${name(b.e)} by ${Math.round(o.width)}x${Math.round(o.height)} px`,
        });
    }
  }
  // Text a person reads: every rendered element's own words must be seen whole, not cut by
  // an ellipsis or a box that hides overflow, spilling out of their box, or off the screen.
  // Buttons, badges and summaries are checked above (clipped); inputs scroll their value by design.
  {
    const HIDES = /^(hidden|clip)$/;
    for (const e of document.body.querySelectorAll('*')) {
      if (
        e.matches('button, .badge, summary, input, select, textarea, option, script, style') ||
        e.closest('button, .badge, summary, select') !== null
      )
        continue;
      const words = [...e.childNodes].filter(
        (n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '',
      );
      // Inside a closed details (content-visibility hidden in Chromium) it is not shown.
      if (words.length === 0 || !rendered(e) || !e.checkVisibility({ contentVisibilityAuto: true })) continue;
      const s = getComputedStyle(e);
      // A box that scrolls its own words (the receipt) shows them all by scrolling.
      if (/(auto|scroll)/.test(s.overflowX) || /(auto|scroll)/.test(s.overflowY)) continue;
      const r = e.getBoundingClientRect();
      // A box of a pixel or less is text for screen readers only (visually hidden on purpose).
      if (r.width <= 1 || r.height <= 1) continue;
      // The union of the rectangles the words are drawn in.
      let tr = null;
      for (const n of words) {
        const range = document.createRange();
        range.selectNodeContents(n);
        for (const q of range.getClientRects()) {
          if (q.width < 0.5 || q.height < 0.5) continue;
          tr =
            tr === null
              ? DOMRect.fromRect(q)
              : new DOMRect(
                  Math.min(tr.left, q.left),
                  Math.min(tr.top, q.top),
                  Math.max(tr.right, q.right) - Math.min(tr.left, q.left),
                  Math.max(tr.bottom, q.bottom) - Math.min(tr.top, q.top),
                );
        }
      }
      if (tr === null) continue;
      const scroller = scrollerOf(e);
      if (scroller !== null) {
        const seen = intersect(tr, scroller.getBoundingClientRect());
        // Scrolled away (wholly or in part) in a list that scrolls: reachable by scrolling.
        if (seen.width < tr.width - EPS || seen.height < tr.height - EPS) continue;
      }
      const block = s.display !== 'inline' && s.display !== 'contents';
      if (block && (s.textOverflow === 'ellipsis' || HIDES.test(s.overflowX)) && e.scrollWidth > e.clientWidth + 1) {
        problems.push({
          kind: 'text',
          what: name(e),
          detail: `cut: its words need ${e.scrollWidth} px wide, have ${e.clientWidth}`,
        });
        continue;
      }
      if (block && HIDES.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1) {
        problems.push({
          kind: 'text',
          what: name(e),
          detail: `cut: its words need ${e.scrollHeight} px high, have ${e.clientHeight}`,
        });
        continue;
      }
      if (tr.left < -EPS || tr.top < -EPS || tr.right > vw + EPS || tr.bottom > vh + EPS) {
        problems.push({
          kind: 'text',
          what: name(e),
          detail: `leaves the ${vw}x${vh} viewport: drawn at ${round(tr)}`,
        });
        continue;
      }
      if (block && (tr.left < r.left - 1 || tr.right > r.right + 1 || tr.bottom > r.bottom + 1)) {
        problems.push({
          kind: 'text',
          what: name(e),
          detail: `spills out of its box at ${round(r)}: drawn at ${round(tr)}`,
        });
        continue;
      }
      const cutBy = clippers(e, scroller).find((c) => {
        const cr = c.getBoundingClientRect();
        return tr.left < cr.left - 1 || tr.top < cr.top - 1 || tr.right > cr.right + 1 || tr.bottom > cr.bottom + 1;
      });
      if (cutBy !== undefined)
        problems.push({
          kind: 'text',
          what: name(e),
          detail: `drawn at ${round(tr)}, cut off by ${name(cutBy)} at ${round(cutBy.getBoundingClientRect())}`,
        });
    }
  }
  // What an empty field says it is for (its placeholder) and a picker's chosen entry are
  // read like any text: they must fit the field (the browser cuts them without an ellipsis).
  {
    const ctx = document.createElement('canvas').getContext('2d');
    for (const e of document.body.querySelectorAll('input[placeholder], select')) {
      if (!rendered(e) || ctx === null) continue;
      const isSelect = e.tagName === 'SELECT';
      const words = isSelect ? (e.selectedOptions[0]?.textContent ?? '') : e.value === '' ? e.placeholder : '';
      if (words.trim() === '') continue;
      const s = getComputedStyle(e);
      ctx.font = s.font;
      const need = ctx.measureText(words).width;
      // A picker draws its arrow inside its box, about a line high.
      const room =
        e.clientWidth -
        parseFloat(s.paddingLeft) -
        parseFloat(s.paddingRight) -
        (isSelect ? parseFloat(s.fontSize) * 1.25 : 0);
      if (need > room + 1)
        problems.push({
          kind: 'text',
          what: name(e),
          detail: `cut: "${words.slice(0, 30)}" needs ${Math.ceil(need)} px, has ${Math.floor(room)}`,
        });
    }
  }
  return problems;
};
