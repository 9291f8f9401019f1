import type { FaultInjector } from '../../../src/sim/platform/faults.js';
import type { LedgerEntry } from '../../../src/sim/platform/payments/index.js';

/** The demo platform a chaos run drives: in the parent process, so it survives the kills and its ledger is the truth. */
export interface ChaosPlatform {
  apiUrl: string;
  mtlsUrl: string;
  faults: FaultInjector;
  ledger(): LedgerEntry[];
}
