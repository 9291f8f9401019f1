import type { Command } from 'commander';
import { register as registerCerts } from './certs.js';
import { register as registerConfig } from './config.js';
import { register as registerSim } from './sim.js';

/** One file per command, each with register(program). */
export const commandRegistrations: ReadonlyArray<(program: Command) => void> = [
  registerCerts,
  registerConfig,
  registerSim,
];
