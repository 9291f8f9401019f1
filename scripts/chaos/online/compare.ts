import type { LedgerEntry } from '../../../src/sim/platform/payments/index.js';

/**
 * The verdict of the online chaos run: the terminal's journal against the demo platform's
 * ledger (the truth: every money movement, append-only). The chaos target "0 lost,
 * 0 duplicated, 0 unresolved" (docs/performance.md, "Quality targets"), and the invariants behind it
 * (docs/architecture.md, "Invariants": no sale lost, no sale charged twice, every unknown
 * outcome resolved).
 */

/** What the check needs of a journal row (columns of the transactions table). */
export interface ChaosJournalRow {
  clientTransactionId: string;
  kind: 'sale' | 'capture' | 'cancel' | 'refund';
  merchantId: string | undefined;
  method: string | undefined;
  amount: number;
  state: string;
  relatedClientTransactionId: string | undefined;
  capturedAmount: number;
  refundedAmount: number;
  cancelledAmount: number;
  /** What staff see and the platform's last status, for a finding's detail. */
  message?: string | undefined;
  platformStatus?: string | undefined;
  /** The platform's id of the row, when the agent learnt it. */
  serverTransactionId?: string | undefined;
}

/** The row's message and platform status, and its operations', so a finding explains itself. */
function why(row: ChaosJournalRow, rows: readonly ChaosJournalRow[]): string {
  const ops = rows
    .filter((r) => r.relatedClientTransactionId === row.clientTransactionId)
    .map((r) => `${r.kind} ${r.state}${r.message !== undefined ? ` "${r.message}"` : ''}`);
  return ` (${row.method ?? ''} ${row.merchantId ?? ''}, platform status ${row.platformStatus ?? 'none'}, message "${row.message ?? ''}"${ops.length > 0 ? `; operations: ${ops.join('; ')}` : ''})`;
}

export type ChaosLedgerEntry = Pick<
  LedgerEntry,
  'kind' | 'merchantId' | 'clientTransactionId' | 'paymentClientTransactionId' | 'amount' | 'effect'
> &
  Partial<Pick<LedgerEntry, 'serverTransactionId'>>;

export interface Finding {
  clientTransactionId: string;
  detail: string;
}

/**
 * What the customer was told as final, as the local API reported it to the client that
 * started the sale: approved (online), approved offline (stored, uploaded later), or
 * nothing charged (declined, failed, cancelled, reversed). A sale the client never saw
 * final (the agent was killed first) is not in the map.
 */
export type Told = 'approved' | 'approved_offline' | 'nothing_charged';

/**
 * What the client of a refund (or a refund by web) was told as final: done (money went back)
 * or not done (nothing moved). An operation the client never saw final is not in the map.
 */
export interface OperationTold {
  kind: string;
  /** The sale it was for. */
  saleId: string;
  said: 'done' | 'not_done';
  amount: number;
  /** The platform's id of the operation as its client last saw it, when known. */
  serverTransactionId?: string | undefined;
}

export interface Comparison {
  journal: { sales: number; operations: number; byState: Record<string, number>; byOperation: Record<string, number> };
  platform: { entries: number; salesCharged: number; netCharged: number };
  /**
   * Money and journal apart: charged at the platform but not approved in the journal (or
   * not in it at all, or left needing a person), or told nothing was charged; the journal
   * says approved (sale or refund), the platform has no such movement.
   */
  lost: Finding[];
  /** A client transaction id that moved money more than once, or a sale charged beyond its amount. */
  duplicated: Finding[];
  /** Left in flight, reversing, waiting, stored offline, or needing a person without a charge, after the final recovery. */
  unresolved: Finding[];
  /** Told approved but never charged (or reversed after), or told nothing charged but charged. */
  toldWrongly: Finding[];
  /** Told approved offline, declined by the platform at upload: the offline risk the merchant carries, not a fault. */
  offlineDeclined: Finding[];
  /** Settled in the journal, but the platform's net charge says otherwise (or it charged a sale the journal does not know). */
  mismatched: Finding[];
}

/** Not settled: the final recovery must leave none of these (`pending`: a refund or cancel whose result is still to come). */
export const UNRESOLVED_STATES: ReadonlySet<string> = new Set([
  'created',
  'awaiting_customer',
  'in_flight',
  'pending',
  'reversing',
  'offline_stored',
]);

const CHARGE_KINDS: ReadonlySet<string> = new Set(['sale', 'authorization']);

/**
 * Each refund's and cancel's own money movements at the platform. A movement is its
 * operation's when it carries the operation's client id (a refund's `clientNewTransactionId`
 * becomes its record's `clientTransactionId`) or the server id the agent learnt. A refund by
 * web's id is not promised to be kept (the strict platform gives the refund an id of its
 * own), and one settled from the sale's history has no server id: such an operation claims
 * a movement of the same sale and amount that no other operation claimed.
 */
function claimMovements(
  rows: readonly ChaosJournalRow[],
  perSale: ReadonlyMap<string, ChaosLedgerEntry[]>,
  opsTold: ReadonlyMap<string, OperationTold>,
): Map<string, ChaosLedgerEntry[]> {
  const ops = new Map<string, { saleId: string; amount: number; serverId: string | undefined; done: boolean }>();
  for (const r of rows) {
    if ((r.kind === 'refund' || r.kind === 'cancel') && r.relatedClientTransactionId !== undefined) {
      ops.set(r.clientTransactionId, {
        saleId: r.relatedClientTransactionId,
        amount: r.amount,
        serverId: r.serverTransactionId,
        done: r.state === 'approved' || opsTold.get(r.clientTransactionId)?.said === 'done',
      });
    }
  }
  for (const [id, op] of opsTold)
    if (!ops.has(id))
      ops.set(id, { saleId: op.saleId, amount: op.amount, serverId: op.serverTransactionId, done: op.said === 'done' });
  const claimed = new Set<ChaosLedgerEntry>();
  const moves = new Map<string, ChaosLedgerEntry[]>();
  const giveBack = (e: ChaosLedgerEntry): boolean => e.kind === 'refund' || e.kind === 'cancel';
  for (const [id, op] of ops) {
    const own = (perSale.get(op.saleId) ?? []).filter(
      (e) => e.clientTransactionId === id || (op.serverId !== undefined && e.serverTransactionId === op.serverId),
    );
    for (const e of own) claimed.add(e);
    if (own.length > 0) moves.set(id, own);
  }
  // Only an operation the journal or its client holds done claims by amount: one not done
  // must not take the movement of a later one of the same amount.
  for (const [id, op] of ops) {
    if (moves.has(id) || !op.done) continue;
    const free = (perSale.get(op.saleId) ?? []).find(
      (e) => giveBack(e) && e.amount === op.amount && !claimed.has(e) && !ops.has(e.clientTransactionId),
    );
    if (free !== undefined) {
      claimed.add(free);
      moves.set(id, [free]);
    }
  }
  return moves;
}

/** What the customer should be charged for a settled sale, by the journal. */
function expectedNet(row: ChaosJournalRow): number {
  return row.state === 'approved' ? row.amount - row.cancelledAmount - row.refundedAmount : 0;
}

const count = (map: Record<string, number>, key: string): void => {
  map[key] = (map[key] ?? 0) + 1;
};

export function compareJournalWithLedger(
  rows: readonly ChaosJournalRow[],
  ledger: readonly ChaosLedgerEntry[],
  told: ReadonlyMap<string, Told> = new Map(),
  opsTold: ReadonlyMap<string, OperationTold> = new Map(),
): Comparison {
  const lost: Finding[] = [];
  const toldWrongly: Finding[] = [];
  const offlineDeclined: Finding[] = [];
  const duplicated: Finding[] = [];
  const unresolved: Finding[] = [];
  const mismatched: Finding[] = [];
  const duplicatedIds = new Set<string>();
  const dup = (id: string, detail: string): void => {
    if (duplicatedIds.has(id)) return;
    duplicatedIds.add(id);
    duplicated.push({ clientTransactionId: id, detail });
  };

  // Each client transaction id moves money of one kind at most once (docs/architecture.md, "Invariants" 2).
  const perMove = new Map<string, ChaosLedgerEntry[]>();
  const perSale = new Map<string, ChaosLedgerEntry[]>();
  for (const e of ledger) {
    const key = `${e.merchantId} ${e.clientTransactionId} ${e.kind}`;
    perMove.set(key, [...(perMove.get(key) ?? []), e]);
    perSale.set(e.paymentClientTransactionId, [...(perSale.get(e.paymentClientTransactionId) ?? []), e]);
  }
  for (const entries of perMove.values()) {
    const first = entries[0] as ChaosLedgerEntry;
    if (entries.length > 1)
      dup(
        first.clientTransactionId,
        `${entries.length} ${first.kind} movements at ${first.merchantId} for one client transaction id`,
      );
  }

  const byId = new Map(rows.map((r) => [r.clientTransactionId, r]));
  const movesOf = claimMovements(rows, perSale, opsTold);
  const byState: Record<string, number> = {};
  const byOperation: Record<string, number> = {};
  let sales = 0;
  for (const row of rows) {
    if (row.kind === 'sale') {
      sales++;
      count(byState, row.state);
    } else count(byOperation, `${row.kind} ${row.state}`);
    if (row.state === 'needs_attention') {
      // A charged sale a person must sort out is money the terminal has lost track of.
      const charged =
        row.kind === 'sale' &&
        (perSale.get(row.clientTransactionId) ?? []).some(
          (e) => CHARGE_KINDS.has(e.kind) && e.clientTransactionId === row.clientTransactionId,
        );
      if (charged)
        lost.push({
          clientTransactionId: row.clientTransactionId,
          detail: `charged at the platform, left needs_attention in the journal${why(row, rows)}`,
        });
      else
        unresolved.push({
          clientTransactionId: row.clientTransactionId,
          detail: `${row.kind} left needs_attention${why(row, rows)}`,
        });
      checkTold(row.clientTransactionId, row);
      continue;
    }
    if (UNRESOLVED_STATES.has(row.state)) {
      unresolved.push({ clientTransactionId: row.clientTransactionId, detail: `${row.kind} left ${row.state}` });
      continue;
    }
    if (row.kind === 'sale') checkSale(row, perSale.get(row.clientTransactionId) ?? []);
    else checkOperation(row);
    if (row.kind === 'sale') checkTold(row.clientTransactionId, row);
  }
  // A sale the client was told about that the journal does not have at all.
  for (const id of told.keys()) if (!byId.has(id)) checkTold(id, undefined);

  function checkTold(id: string, row: ChaosJournalRow | undefined): void {
    const said = told.get(id);
    if (said === undefined) return;
    const entries = perSale.get(id) ?? [];
    const charged = entries.some((e) => CHARGE_KINDS.has(e.kind) && e.clientTransactionId === id);
    // Moves back by the agent itself (a reversal), not by the staff's cancels and refunds.
    const reversed = row?.state === 'reversed' || entries.some((e) => e.kind === 'reversal');
    if (said === 'nothing_charged') {
      const net = entries.reduce((s, e) => s + e.effect, 0);
      if (net > 0) {
        toldWrongly.push({ clientTransactionId: id, detail: `told nothing was charged, the platform holds ${net}` });
        if (!lost.some((f) => f.clientTransactionId === id))
          lost.push({
            clientTransactionId: id,
            detail: `charged ${net} at the platform, the customer was told nothing was charged`,
          });
      }
      return;
    }
    if (!charged) {
      if (said === 'approved_offline' && row?.state === 'declined')
        offlineDeclined.push({
          clientTransactionId: id,
          detail: 'approved offline, declined by the platform at upload',
        });
      else
        toldWrongly.push({
          clientTransactionId: id,
          detail: `told ${said}, never charged at the platform (journal ${row?.state ?? 'has no row'})`,
        });
    } else if (reversed)
      toldWrongly.push({
        clientTransactionId: id,
        detail: `told ${said}, then reversed by the agent (journal ${row?.state ?? 'has no row'})`,
      });
  }

  function checkSale(row: ChaosJournalRow, entries: ChaosLedgerEntry[]): void {
    const charges = entries.filter(
      (e) => CHARGE_KINDS.has(e.kind) && e.clientTransactionId === row.clientTransactionId,
    );
    const charged = charges.reduce((s, e) => s + e.amount, 0);
    const net = entries.reduce((s, e) => s + e.effect, 0);
    if (charges.length > 1 || charged > row.amount || net > row.amount) {
      dup(
        row.clientTransactionId,
        `charged ${charges.length} time(s), ${charged} in all, net ${net}, for a sale of ${row.amount}`,
      );
      return;
    }
    if (row.state !== 'approved' && net > 0) {
      lost.push({
        clientTransactionId: row.clientTransactionId,
        detail: `journal ${row.state}, but the platform holds ${net}`,
      });
      return;
    }
    if (row.state === 'approved' && charges.length === 0) {
      lost.push({
        clientTransactionId: row.clientTransactionId,
        detail: `approved for ${row.amount} in the journal, never charged at the platform`,
      });
      return;
    }
    const expected = expectedNet(row);
    if (net !== expected) {
      mismatched.push({
        clientTransactionId: row.clientTransactionId,
        detail: `journal ${row.state} (net ${expected} expected), platform net ${net}`,
      });
    }
  }

  function checkOperation(row: ChaosJournalRow): void {
    // The sale-level net covers the money; a refund also has its own movement to find.
    if (row.kind !== 'refund' && row.kind !== 'cancel') return;
    const own = movesOf.get(row.clientTransactionId) ?? [];
    if (row.kind === 'refund' && row.state === 'approved' && !own.some((e) => e.kind === 'refund')) {
      const sale = byId.get(row.relatedClientTransactionId ?? '');
      // A refund by web may be carried out as a cancel: any movement of its own counts.
      if (own.length === 0)
        lost.push({
          clientTransactionId: row.clientTransactionId,
          detail: `refund of ${row.amount} on ${sale?.clientTransactionId ?? '?'} approved in the journal, not at the platform`,
        });
      return;
    }
    if (row.state !== 'approved' && own.length > 0) {
      mismatched.push({
        clientTransactionId: row.clientTransactionId,
        detail: `${row.kind} ${row.state} in the journal, but the platform moved ${own.map((e) => `${e.kind} ${e.amount}`).join(', ')}`,
      });
    }
  }

  // A refund's client told it was done must find its movement at the platform, and one told
  // nothing moved must find none (a refund by web may be carried out as a cancel: its own
  // client id on any movement counts). A "done" that a later result undid is told wrongly.
  for (const [id, op] of opsTold) {
    const own = movesOf.get(id) ?? [];
    const back = -own.reduce((sum, e) => sum + e.effect, 0);
    if (op.said === 'done' && back <= 0)
      toldWrongly.push({
        clientTransactionId: id,
        detail: `${op.kind} of ${op.amount} on ${op.saleId}: told done, the platform moved nothing back`,
      });
    if (op.said === 'not_done' && back > 0)
      toldWrongly.push({
        clientTransactionId: id,
        detail: `${op.kind} of ${op.amount} on ${op.saleId}: told nothing moved, the platform gave back ${back}`,
      });
  }

  // Money the platform moved for a sale the journal has never heard of.
  for (const [saleId, entries] of perSale) {
    if (byId.has(saleId)) continue;
    const net = entries.reduce((s, e) => s + e.effect, 0);
    if (net > 0)
      lost.push({ clientTransactionId: saleId, detail: `charged at the platform (net ${net}) but not in the journal` });
    else
      mismatched.push({
        clientTransactionId: saleId,
        detail: `money moved at the platform (net ${net}) for a sale not in the journal`,
      });
  }

  const netCharged = ledger.reduce((s, e) => s + e.effect, 0);
  return {
    journal: { sales, operations: rows.length - sales, byState, byOperation },
    platform: { entries: ledger.length, salesCharged: [...perSale.keys()].length, netCharged },
    lost,
    duplicated,
    unresolved,
    mismatched,
    toldWrongly,
    offlineDeclined,
  };
}
