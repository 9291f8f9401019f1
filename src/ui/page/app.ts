import { Api, ApiError } from './api.js';
import { byId, el, show, timeOf, today } from './dom.js';
import { MerchantPicker } from './merchant-picker.js';
import { OfflinePanel } from './offline-panel.js';
import { EventStream } from './sse.js';
import { methodText, outcomeText, pendingText, stateText, stepText } from './texts.js';
import { PENDING_STATES, type AllowedOperations, type BusEvent, type DeviceStatus, type OfflineLevels, type Transaction } from './types.js';

/**
 * The counter page: amount entry, method, start; live progress from the agent's events;
 * today's transactions with cancel / refund / capture as the agent allows them; the
 * offline queue behind the offline badge; a merchant picker when there are several.
 */

const token = document.querySelector<HTMLMetaElement>('meta[name="local-api-token"]')?.content ?? '';
const api = new Api(token);
const merchants = new MerchantPicker(api);
const offlinePanel = new OfflinePanel(api, {
  onError: (message) => showError(message),
  onChanged: () => {
    scheduleList();
    void loadStatus().catch(() => undefined);
  },
});

interface Choice {
  method: string;
  scenario?: string;
}

const state: {
  choice: Choice;
  sale: Transaction | undefined;
  qrFor: string | undefined;
  salePoll: number | undefined;
  list: Transaction[];
  selected: string | undefined;
  ops: AllowedOperations | undefined;
  listTimer: number | undefined;
} = { choice: { method: 'card' }, sale: undefined, qrFor: undefined, salePoll: undefined, list: [], selected: undefined, ops: undefined, listTimer: undefined };

function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

function showError(text: string, warn = false): void {
  byId('error-text').textContent = text;
  byId('error').classList.toggle('warn', warn);
  show(byId('error'), true);
}

function clearError(): void {
  show(byId('error'), false);
}

// ---------- status bar ----------

function renderPlatform(online: boolean): void {
  const b = byId('platform');
  b.textContent = online ? 'online' : 'platform offline';
  b.className = `badge ${online ? 'ok' : 'bad'}`;
}

function renderDevices(devices: DeviceStatus[]): void {
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

function renderOffline(levels: OfflineLevels | null): void {
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
  const currency = byId<HTMLSelectElement>('currency').value;
  const floor = levels.floorLimitsText[currency];
  const max = levels.maxTotalText[currency];
  const limits = `${floor ? `up to ${floor} per sale; ` : ''}at most ${levels.maxCount} sales${max ? ` and ${max}` : ''}`;
  b.title = `${levels.enabled ? `Offline card sales ${limits}` : 'Offline sales disabled'}${levels.lastError ? ` · last upload error: ${levels.lastError}` : ''}${levels.needsAttention ? ` · ${levels.needsAttention} need attention` : ''} · tap to see the stored sales`;
  b.dataset.limits = limits;
  show(b, true);
}

async function loadStatus(): Promise<void> {
  const s = await api.status();
  renderPlatform(s.platform.online);
  renderDevices(s.devices);
  renderOffline(s.offline);
  void merchants.load().catch(() => undefined);
  const currency = byId<HTMLSelectElement>('currency');
  if (!currency.dataset.touched) {
    if (![...currency.options].some((o) => o.value === s.agent.defaultCurrency)) currency.add(new Option(s.agent.defaultCurrency));
    currency.value = s.agent.defaultCurrency;
  }
}

// ---------- sale entry ----------

function choose(button: HTMLButtonElement): void {
  const method = button.dataset.method ?? 'card';
  const scenario = button.dataset.scenario;
  state.choice = scenario === undefined ? { method } : { method, scenario };
  for (const b of document.querySelectorAll<HTMLButtonElement>('.method')) b.setAttribute('aria-pressed', String(b === button));
  show(byId('moto-fields'), method === 'moto');
  show(byId('scan-fields'), scenario === 'MerchantScan');
}

function keypad(key: string): void {
  const input = byId<HTMLInputElement>('amount');
  if (key === 'back') input.value = input.value.slice(0, -1);
  else if (key === '.' && input.value.includes('.')) return;
  else input.value += key;
}

function value(id: string): string | undefined {
  const v = byId<HTMLInputElement>(id).value.trim();
  return v === '' ? undefined : v;
}

async function startSale(): Promise<void> {
  clearError();
  const amount = byId<HTMLInputElement>('amount').value.trim();
  if (amount === '') {
    showError('Enter the amount first.');
    return;
  }
  const body: Record<string, unknown> = { method: state.choice.method, amount, currency: byId<HTMLSelectElement>('currency').value };
  if (state.choice.scenario !== undefined) body.scenario = state.choice.scenario;
  const merchantId = merchants.selected();
  if (merchantId !== undefined) body.merchantId = merchantId;
  if (state.choice.method === 'moto') {
    const moto: Record<string, string> = {};
    const fields: Array<[string, string]> = [['zipCode', 'moto-zip'], ['houseNumber', 'moto-house'], ['email', 'moto-email'], ['phone', 'moto-phone']];
    for (const [key, id] of fields) {
      const v = value(id);
      if (v !== undefined) moto[key] = v;
    }
    if (Object.keys(moto).length > 0) body.moto = moto;
  }
  if (state.choice.scenario === 'MerchantScan') {
    const walletId = value('wallet-id');
    if (walletId !== undefined) body.walletId = walletId;
  }
  const start = byId<HTMLButtonElement>('start');
  start.disabled = true;
  try {
    const t = await api.startSale(body);
    openSale(t);
  } catch (err) {
    showError(messageOf(err));
  } finally {
    start.disabled = false;
  }
}

// ---------- the running sale ----------

function openSale(t: Transaction): void {
  state.sale = t;
  state.qrFor = undefined;
  const qr = byId<HTMLImageElement>('sale-qr');
  qr.removeAttribute('src');
  show(qr, false);
  show(byId('sale-form'), false);
  show(byId('sale-panel'), true);
  renderSale(t);
  scheduleSalePoll();
  scheduleList();
}

function closeSale(): void {
  state.sale = undefined;
  if (state.salePoll !== undefined) clearTimeout(state.salePoll);
  state.salePoll = undefined;
  const qr = byId<HTMLImageElement>('sale-qr');
  if (qr.src.startsWith('blob:')) URL.revokeObjectURL(qr.src);
  show(byId('sale-panel'), false);
  show(byId('sale-form'), true);
  byId<HTMLInputElement>('amount').value = '';
}

function renderSale(t: Transaction): void {
  byId('sale-panel').dataset.transactionId = t.clientTransactionId;
  byId('sale-amount').textContent = t.amountText;
  byId('sale-method').textContent = [methodText(t), t.maskedPan, merchants.selected() !== undefined ? merchants.nameOf(t.merchantId) : undefined].filter(Boolean).join(' · ');
  const pending = PENDING_STATES.has(t.state);
  const outcome = byId('sale-outcome');
  if (pending) {
    if (byId('sale-progress').dataset.step === undefined || t.state !== 'awaiting_customer') byId('sale-progress').textContent = pendingText(t);
    show(outcome, false);
    byId('sale-message').textContent = '';
  } else {
    const o = outcomeText(t.state);
    outcome.textContent = o.text;
    outcome.className = `outcome ${o.cls}`;
    outcome.dataset.state = t.state;
    show(outcome, true);
    byId('sale-progress').textContent = '';
    delete byId('sale-progress').dataset.step;
    byId('sale-message').textContent = t.message ?? (t.offline ? 'Stored on the terminal; sent when the platform is reachable.' : '');
    show(byId<HTMLImageElement>('sale-qr'), false);
  }
  show(byId('abort'), pending && t.state !== 'in_flight' && t.state !== 'reversing');
  show(byId('done'), !pending);
  if (pending && t.qr !== undefined && state.qrFor !== t.clientTransactionId) void loadQr(t.clientTransactionId);
}

async function loadQr(id: string): Promise<void> {
  state.qrFor = id;
  try {
    const url = await api.qrUrl(id);
    if (state.sale?.clientTransactionId !== id || !PENDING_STATES.has(state.sale.state)) {
      URL.revokeObjectURL(url);
      return;
    }
    const img = byId<HTMLImageElement>('sale-qr');
    img.src = url;
    show(img, true);
  } catch (err) {
    state.qrFor = undefined;
    showError(messageOf(err));
  }
}

/** Events drive the page; a slow poll is the safety net should an event be missed. */
function scheduleSalePoll(): void {
  if (state.salePoll !== undefined) clearTimeout(state.salePoll);
  state.salePoll = window.setTimeout(() => void refreshSale(), 2000);
}

async function refreshSale(): Promise<void> {
  const sale = state.sale;
  if (sale === undefined) return;
  try {
    const t = await api.transaction(sale.clientTransactionId);
    if (state.sale?.clientTransactionId !== t.clientTransactionId) return;
    const changed = t.state !== state.sale.state;
    state.sale = t;
    renderSale(t);
    if (changed) scheduleList();
  } catch (err) {
    showError(messageOf(err));
  }
  if (state.sale !== undefined && PENDING_STATES.has(state.sale.state)) scheduleSalePoll();
}

async function abortSale(): Promise<void> {
  const sale = state.sale;
  if (sale === undefined) return;
  try {
    const t = await api.abortSale(sale.clientTransactionId);
    state.sale = t;
    renderSale(t);
    scheduleList();
  } catch (err) {
    showError(messageOf(err));
  }
}

// ---------- today's transactions ----------

function scheduleList(): void {
  if (state.listTimer !== undefined) return;
  state.listTimer = window.setTimeout(() => {
    state.listTimer = undefined;
    void loadList();
  }, 150);
}

async function loadList(): Promise<void> {
  try {
    state.list = await api.transactions(today());
    renderList();
    if (state.selected !== undefined) await loadOps(state.selected);
  } catch (err) {
    showError(messageOf(err));
  }
}

function renderList(): void {
  const ol = byId('transactions');
  if (state.list.length === 0) {
    ol.replaceChildren(el('li', 'empty', 'No transactions today.'));
    return;
  }
  ol.replaceChildren(
    ...state.list.map((t) => {
      const li = el('li');
      li.dataset.testid = `tx-${t.clientTransactionId}`;
      li.dataset.id = t.clientTransactionId;
      li.dataset.state = t.state;
      li.dataset.kind = t.kind;
      if (t.clientTransactionId === state.selected) li.classList.add('selected');
      const related = state.list.find((x) => x.clientTransactionId === t.relatedClientTransactionId);
      const kind = t.kind.charAt(0).toUpperCase() + t.kind.slice(1);
      const what = t.kind === 'sale' ? methodText(t) : related ? `${kind} of ${methodText(related)} ${related.amountText}` : kind;
      li.append(
        el('span', 'time', timeOf(t.createdAt)),
        el('span', 'what', [what, t.maskedPan].filter(Boolean).join(' · ')),
        el('span', 'amt', t.kind === 'sale' ? t.amountText : `−${t.amountText}`),
        el('span', `state ${t.state}`, stateText(t)),
      );
      li.addEventListener('click', () => void select(t.clientTransactionId));
      return li;
    }),
  );
}

function renderOpsTitle(id: string): void {
  const t = state.list.find((x) => x.clientTransactionId === id);
  byId('ops-title').textContent = t ? `${t.kind} ${t.amountText} · ${t.state.replace(/_/g, ' ')}` : id;
}

async function select(id: string): Promise<void> {
  state.selected = id;
  renderList();
  renderOpsTitle(id);
  byId('op-message').textContent = '';
  byId<HTMLInputElement>('op-amount').value = '';
  show(byId('ops'), true);
  await loadOps(id);
}

function setOp(id: string, op: AllowedOperations['cancel'] | undefined): void {
  const b = byId<HTMLButtonElement>(id);
  b.disabled = op === undefined || !op.allowed;
  b.title = op === undefined ? '' : op.allowed ? `up to ${op.maxAmountText}` : (op.reason ?? 'not allowed');
}

async function loadOps(id: string): Promise<void> {
  const t = state.list.find((x) => x.clientTransactionId === id);
  renderOpsTitle(id);
  state.ops = undefined;
  setOp('op-cancel', undefined);
  setOp('op-refund', undefined);
  setOp('op-capture', undefined);
  if (t === undefined || t.kind !== 'sale') {
    byId('op-message').textContent = t ? 'Only sales can be cancelled, refunded or captured.' : '';
    return;
  }
  try {
    const ops = await api.allowedOperations(id);
    if (state.selected !== id) return;
    state.ops = ops;
    setOp('op-cancel', ops.cancel);
    setOp('op-refund', ops.refund);
    setOp('op-capture', ops.capture);
    const why = [ops.cancel, ops.refund, ops.capture].filter((o) => !o.allowed && o.reason).map((o) => o.reason);
    const msg = byId('op-message');
    if (msg.dataset.result === undefined) {
      msg.className = 'ops-message';
      msg.textContent = why.length > 0 && !ops.cancel.allowed && !ops.refund.allowed && !ops.capture.allowed ? (why[0] ?? '') : '';
    }
  } catch (err) {
    const msg = byId('op-message');
    msg.className = 'ops-message error';
    msg.textContent = messageOf(err);
  }
}

async function operate(op: 'cancel' | 'refund' | 'capture'): Promise<void> {
  const id = state.selected;
  if (id === undefined) return;
  const body: Record<string, unknown> = {};
  const amount = value('op-amount');
  const approvalCode = value('op-approval');
  if (amount !== undefined) body.amount = amount;
  if (approvalCode !== undefined && op !== 'capture') body.approvalCode = approvalCode;
  const msg = byId('op-message');
  for (const b of ['op-cancel', 'op-refund', 'op-capture']) byId<HTMLButtonElement>(b).disabled = true;
  msg.className = 'ops-message';
  msg.textContent = `${op}…`;
  try {
    const t = await api.operate(op, id, body);
    // An operation's own row is `approved` when the platform accepted it.
    const outcome = t.state === 'approved' ? 'done' : t.state.replace(/_/g, ' ');
    msg.textContent = `${op === 'cancel' ? 'Cancel' : op === 'refund' ? 'Refund' : 'Capture'} ${t.amountText}: ${outcome}${t.message ? ` (${t.message})` : ''}`;
    msg.dataset.result = t.state;
  } catch (err) {
    msg.className = 'ops-message error';
    msg.textContent = messageOf(err);
    delete msg.dataset.result;
  }
  await loadList();
  delete msg.dataset.result;
}

// ---------- live events ----------

function onEvent(e: BusEvent): void {
  const d = e.data;
  const saleId = state.sale?.clientTransactionId;
  switch (e.type) {
    case 'transaction.updated':
      if (d.clientTransactionId === saleId) void refreshSale();
      scheduleList();
      if (offlinePanel.open) void offlinePanel.reload();
      break;
    case 'reader.progress':
      if (state.sale !== undefined && (d.clientTransactionId === undefined || d.clientTransactionId === saleId) && PENDING_STATES.has(state.sale.state)) {
        const p = byId('sale-progress');
        p.textContent = stepText(String(d.step), typeof d.text === 'string' ? d.text : undefined);
        p.dataset.step = String(d.step);
      }
      break;
    case 'display.qr':
      if (saleId !== undefined && d.clientTransactionId === saleId && state.qrFor !== saleId) void loadQr(saleId);
      break;
    case 'device.status':
    case 'platform.status':
      void loadStatus().catch(() => undefined);
      break;
    case 'auth.status':
      // The merchants are known once the agent has read its credentials.
      void merchants.load().catch(() => undefined);
      break;
    case 'offline.levels':
      void loadStatus().catch(() => undefined);
      void offlinePanel.reload();
      break;
    case 'offline.warning':
      // e.g. a sale declined after upload: the customer has gone, staff must follow up.
      showError(String(d.message), true);
      scheduleList();
      void offlinePanel.reload();
      break;
    case 'offline.item':
      scheduleList();
      void loadStatus().catch(() => undefined);
      void offlinePanel.reload();
      break;
    default:
      break;
  }
}

async function reloadAll(): Promise<void> {
  try {
    await loadStatus();
  } catch (err) {
    showError(messageOf(err));
  }
  await loadList();
  if (state.sale !== undefined) await refreshSale();
  await offlinePanel.reload();
}

function init(): void {
  if (token === '' || token.startsWith('%%')) {
    showError('This page was not served by the terminal agent: open it from the agent\'s address.');
    return;
  }
  for (const b of document.querySelectorAll<HTMLButtonElement>('.method')) b.addEventListener('click', () => choose(b));
  for (const b of document.querySelectorAll<HTMLButtonElement>('#keypad button')) b.addEventListener('click', () => keypad(b.dataset.key ?? ''));
  byId('currency').addEventListener('change', () => {
    byId('currency').dataset.touched = '1';
  });
  byId('amount').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') void startSale();
  });
  byId('start').addEventListener('click', () => void startSale());
  byId('abort').addEventListener('click', () => void abortSale());
  byId('done').addEventListener('click', () => closeSale());
  byId('error-close').addEventListener('click', () => clearError());
  byId('reload').addEventListener('click', () => void reloadAll());
  byId('op-cancel').addEventListener('click', () => void operate('cancel'));
  byId('op-refund').addEventListener('click', () => void operate('refund'));
  byId('op-capture').addEventListener('click', () => void operate('capture'));
  byId('op-close').addEventListener('click', () => {
    state.selected = undefined;
    show(byId('ops'), false);
    renderList();
  });
  offlinePanel.init();
  merchants.init();
  const live = byId('live');
  const stream = new EventStream(token, {
    onEvent,
    onResync: () => void reloadAll(),
    onConnection: (connected) => {
      live.className = `badge ${connected ? 'ok' : 'bad'}`;
      live.title = connected ? 'live updates' : 'reconnecting to the agent…';
      live.dataset.connected = String(connected);
    },
  });
  stream.start();
  void reloadAll();
}

init();
