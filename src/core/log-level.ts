import type { Logger, LevelWithSilent } from 'pino';

/** The levels an operator can set at run time (docs/operations.md, "Log level"). */
export const LOG_LEVELS = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
] as const satisfies readonly LevelWithSilent[];
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Reads and changes a logger tree's level while the agent runs. */
export interface LogLevelControl {
  get(): LogLevel;
  set(level: LogLevel): void;
}

/**
 * The level control of a root logger. A pino child made without its own level reads the
 * level through its prototype, so setting the root's level reaches every component's
 * `log.child({ module })`, made before or after (test/core/log-level.test.ts proves it);
 * a child given its own level keeps it, and the agent makes none.
 */
export function logLevelControl(log: Logger): LogLevelControl {
  return {
    get: () => log.level as LogLevel,
    set: (level) => {
      log.level = level;
    },
  };
}
