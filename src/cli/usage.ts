/**
 * A command line that cannot be run as typed (a bad option value, options that do not go
 * together): exit 64 like commander's own usage errors (unknown option or command, missing
 * argument), code USAGE (README, "Exit codes"). Never carries card data: messages quote at
 * most a short piece of what was typed.
 */
export class UsageError extends Error {
  readonly code = 'USAGE';
}

export function usageError(message: string): UsageError {
  return new UsageError(message);
}

/** EX_USAGE from sysexits.h. */
export const EXIT_USAGE = 64;
