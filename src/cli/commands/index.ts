import type { Command } from 'commander';
import { register as registerCancel } from './cancel.js';
import { register as registerCapture } from './capture.js';
import { register as registerCerts } from './certs.js';
import { register as registerConfig } from './config.js';
import { register as registerDiag } from './diag.js';
import { register as registerEndOfDay } from './end-of-day.js';
import { register as registerDevices } from './devices.js';
import { register as registerJournal } from './journal.js';
import { register as registerLogLevel } from './log-level.js';
import { register as registerQueue } from './queue.js';
import { register as registerReceipt } from './receipt.js';
import { register as registerRefund } from './refund.js';
import { register as registerRegisters } from './registers.js';
import { register as registerRefundByWeb } from './refund-by-web.js';
import { register as registerSale } from './sale.js';
import { register as registerSim } from './sim.js';
import { register as registerStart } from './start.js';
import { register as registerStatus } from './status.js';
import { register as registerTransactions } from './transactions.js';

/**
 * One file per command, each with register(program). Registering loads nothing heavy: each
 * action imports the folders it needs when it runs (`await import(...)`), so `--help`,
 * `config show` or `sale` never load the agent, the simulators, serial ports or SQLite.
 */
export const commandRegistrations: ReadonlyArray<(program: Command) => void> = [
  registerCancel,
  registerCapture,
  registerCerts,
  registerConfig,
  registerDiag,
  registerEndOfDay,
  registerDevices,
  registerJournal,
  registerLogLevel,
  registerQueue,
  registerReceipt,
  registerRefund,
  registerRegisters,
  registerRefundByWeb,
  registerSale,
  registerSim,
  registerStart,
  registerStatus,
  registerTransactions,
];
