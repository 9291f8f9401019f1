import { pino } from 'pino';
import { createLogger, type Logger } from '../../../src/core/index.js';

/**
 * The agent logs at `info` as it does in production (so its logging cost is in the
 * figures), synchronously into /dev/null as pino writes stdout; warnings and errors still
 * reach stderr so a bench that goes wrong says why.
 */
export function benchLogger(): { log: Logger; close: () => void } {
  const devNull = pino.destination({ dest: '/dev/null', sync: true });
  const streams = pino.multistream([
    { level: 'info', stream: devNull },
    { level: 'warn', stream: process.stderr },
  ]);
  return { log: createLogger({ level: 'info', destination: streams }), close: () => devNull.end() };
}
