import type { RunningAgent } from '../../../src/agent.js';
import { postSale } from './local-api.js';
import type { SaleProbe } from './sale-probe.js';
import type { SaleWatch } from './sale-watch.js';
import { nowMs, sleep } from './stats.js';

export interface CardSaleSample {
  /** POST /api/v1/sales until the journal row is approved. */
  total: number;
  /** POST /api/v1/sales until its 202. */
  post: number;
  /** Until the journal row was in_flight: the card result was in hand. */
  card: number;
  /** in_flight until approved: the process call and the journal write of its answer. */
  platform: number;
  /** Phases, when a SaleProbe watched the sale (NaN otherwise). */
  phases: SalePhases;
}

/** A sale's time by phase, each against the floor's part of the same name (docs/performance.md, "Quality targets"). */
export interface SalePhases {
  /** POST until the engine asks the reader: local HTTP, checks, the row's insert. Floor: http + 1 write. */
  toReader: number;
  /** readCard: the serial exchange through link, session and driver. Floor: serial. */
  reader: number;
  /** Card in hand until the process request leaves: the in_flight write, the body. Floor: 1 write. */
  toRequest: number;
  /** The process call through the platform client. Floor: request. */
  request: number;
  /** The answer until the row is approved: adopting it, its write, the event. Floor: 1 write. */
  answer: number;
}

const SALE = { method: 'card', amount: '12.34', currency: 'EUR' } as const;

/** Waits until the reader and the display show the outcome, so one sale's tail never overlaps the next. */
async function outcomeShown(agent: RunningAgent, timeoutMs = 5_000): Promise<void> {
  const sim = agent.simulated;
  if (sim === undefined) return;
  const deadline = Date.now() + timeoutMs;
  while (sim.reader.lastResult === undefined || sim.display.lastText === undefined) {
    if (Date.now() > deadline) throw new Error('the outcome never reached the reader and the display');
    await sleep(1);
  }
}

/**
 * One card sale as the counter page starts it (POST /api/v1/sales), the simulated reader
 * presenting the card as scripted; timed until the journal row is approved, then waited
 * until the outcome is on the reader and the display.
 */
export async function cardSaleThroughApi(
  agent: RunningAgent,
  watch: SaleWatch,
  probe?: SaleProbe,
): Promise<CardSaleSample> {
  const sim = agent.simulated;
  if (sim !== undefined) {
    sim.reader.lastResult = undefined;
    sim.display.lastText = undefined;
    // The simulated devices log every message they receive, for tests: stand-ins for
    // hardware outside the agent, their logs must not count as the agent's memory.
    sim.reader.received.length = 0;
    sim.display.received.length = 0;
  }
  const t0 = nowMs();
  const id = await postSale(agent, SALE);
  const posted = nowMs();
  const settled = await watch.settled(id);
  const inFlight = watch.at(id, 'in_flight') ?? Number.NaN;
  watch.forget(id);
  if (settled.status !== 'approved') throw new Error(`sale ${id} ended ${settled.status}, not approved`);
  await outcomeShown(agent);
  const m = probe?.take(id) ?? {};
  const n = (v: number | undefined): number => v ?? Number.NaN;
  const phases: SalePhases = {
    toReader: n(m.readStart) - t0,
    reader: n(m.readEnd) - n(m.readStart),
    toRequest: n(m.processStart) - n(m.readEnd),
    request: n(m.processEnd) - n(m.processStart),
    answer: settled.at - n(m.processEnd),
  };
  return { total: settled.at - t0, post: posted - t0, card: inFlight - t0, platform: settled.at - inFlight, phases };
}
