import { isDeepStrictEqual } from 'node:util';
import type { LoadedConfig } from '../config/index.js';
import type { Logger, LogLevelControl } from '../core/index.js';

/**
 * The configuration keys SIGHUP (`systemctl reload terminal-agent`) applies to the running
 * agent (docs/operations.md, "Reloading the configuration"). Every other key is read once at
 * start: a change to one is named in a warning and waits for a restart. A key is added here
 * only with the code in `reload()` that applies it, and a row in that section.
 */
export const RELOADABLE_KEYS: readonly string[] = ['log.level'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The dotted paths of the keys whose values differ, sorted: objects are walked key by key
 * (a key added or removed is a change at its path), anything else (arrays included) is
 * compared whole. Only paths: a configuration may hold secrets or the paths to them.
 */
export function changedKeyPaths(before: unknown, after: unknown, prefix = ''): string[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => changedKeyPaths(before[k], after[k], prefix === '' ? k : `${prefix}.${k}`)).sort();
  }
  return isDeepStrictEqual(before, after) ? [] : [prefix === '' ? '(root)' : prefix];
}

export interface ReloaderOptions {
  /** The configuration the agent started with. */
  started: LoadedConfig;
  /** Reads the configuration again the way start-up did (the CLI's configFor). */
  load: () => Promise<LoadedConfig>;
  /** The running agent's log level: the one the local API's log-level route changes. */
  logLevel: LogLevelControl;
  log: Logger;
}

export interface Reloader {
  /** Reads the configuration and applies what can change at run time; never throws. Calls during one are coalesced into one more. */
  reload(): Promise<void>;
}

/**
 * Configuration reload on SIGHUP (docs/operations.md, "Reloading the configuration"): reads
 * the file and sets the log level, nothing else, so a sale in flight is not touched. A file
 * that does not load is logged and the running configuration is kept.
 */
export function configReloader(opts: ReloaderOptions): Reloader {
  const { log } = opts;
  // The configuration in effect: what the agent started with and the reloadable keys applied since.
  let running = opts.started.config;
  let current: Promise<void> | undefined;
  let again = false;

  async function once(): Promise<void> {
    log.info({ configFile: opts.started.file ?? null }, 'SIGHUP: reloading the configuration');
    let loaded: LoadedConfig;
    try {
      loaded = await opts.load();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const file = opts.started.file;
      const named = file === undefined || message.includes(file) ? message : `${message} (${file})`;
      log.error(
        { configFile: file ?? null, code: (err as { code?: unknown } | null)?.code },
        `configuration not reloaded, the agent keeps running on its current one: ${named}`,
      );
      return;
    }
    const changed = changedKeyPaths(running, loaded.config);
    const needRestart = changed.filter((k) => !RELOADABLE_KEYS.includes(k));
    if (needRestart.length > 0) {
      log.warn(
        { keys: needRestart },
        `configuration changed but not applied until a restart (systemctl restart terminal-agent): ${needRestart.join(', ')}`,
      );
    }
    // The configured level always: a level set through the local API lasts until the next reload.
    const previous = opts.logLevel.get();
    const level = loaded.config.log.level;
    const applied = (): void =>
      log.info(
        { configFile: loaded.file ?? null, logLevel: level, previousLogLevel: previous },
        `configuration reloaded: log.level ${level}${previous !== level ? ` (was ${previous})` : ' (unchanged)'}`,
      );
    // Said at the more talkative of the two levels, so that turning logs down is still logged.
    const quieter = (log.levels.values[level] ?? Infinity) > (log.levels.values[previous] ?? Infinity);
    if (quieter) applied();
    opts.logLevel.set(level);
    if (!quieter) applied();
    running = { ...running, log: { ...running.log, level } };
  }

  function reload(): Promise<void> {
    if (current !== undefined) {
      again = true;
      return current;
    }
    current = (async () => {
      try {
        do {
          again = false;
          // A reload that fails on its own never ends the agent (start.ts does not wait for it).
          await once().catch((err: unknown) =>
            log.error({ err }, 'configuration reload failed; the agent keeps running on its current configuration'),
          );
        } while (again);
      } finally {
        current = undefined;
      }
    })();
    return current;
  }

  return { reload };
}
