import type { RunningAgent } from '../../../src/agent.js';
import { nowMs } from './stats.js';

/** When the engine handed work to the reader and the platform, for one sale (nowMs()). */
export interface ProbeMarks {
  readStart?: number;
  readEnd?: number;
  processStart?: number;
  processEnd?: number;
}

/**
 * Timestamps taken by the bench harness, not by the agent: the running agent's reader and
 * platform client are wrapped (the same objects the payment engine calls), so a sale splits
 * into its phases without a line of production code or logging. Call `restore` at the end.
 */
export class SaleProbe {
  private readonly marks = new Map<string, ProbeMarks>();
  private readonly restores: Array<() => void> = [];

  constructor(agent: RunningAgent) {
    const reader = agent.peripherals.reader;
    const readCard = reader.readCard;
    reader.readCard = async (req) => {
      const m = this.mark(req.clientTransactionId);
      m.readStart = nowMs();
      try {
        return await readCard.call(reader, req);
      } finally {
        m.readEnd = nowMs();
      }
    };
    this.restores.push(() => {
      reader.readCard = readCard;
    });
    const client = agent.platformClient;
    const process = client.process;
    client.process = async (body, opts) => {
      const m = this.mark(body.clientNewTransactionId);
      m.processStart = nowMs();
      try {
        return await process.call(client, body, opts);
      } finally {
        m.processEnd = nowMs();
      }
    };
    this.restores.push(() => {
      client.process = process;
    });
  }

  private mark(id: string | undefined): ProbeMarks {
    const key = id ?? '';
    let m = this.marks.get(key);
    if (m === undefined) {
      m = {};
      this.marks.set(key, m);
    }
    return m;
  }

  /** The marks of a sale, forgotten here. */
  take(id: string): ProbeMarks {
    const m = this.marks.get(id) ?? {};
    this.marks.delete(id);
    return m;
  }

  restore(): void {
    for (const r of this.restores) r();
    this.marks.clear();
  }
}
