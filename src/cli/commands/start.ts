import type { Command } from 'commander';
import { configFor } from '../options.js';
import type { Reloader } from '../reload.js';

/** `terminal-agent start`: the agent's main job, until SIGTERM or SIGINT; SIGHUP reloads the configuration. */
export function register(program: Command): void {
  program
    .command('start')
    .description(
      'run the agent (default configuration: embedded demo platform, simulated peripherals, counter page on loopback)',
    )
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { config, file, source, reason } = await configFor(cmd);
      const { createLogger, isJournalStream, logLevelControl } = await import('../../core/index.js');
      const { packageVersion } = await import('../../config/index.js');
      const { startAgent } = await import('../../agent.js');
      const version = packageVersion();
      // Every line names the version; the serial number joins once the certificate is read (agent.ts).
      const log = createLogger({
        level: config.log.level,
        bindings: { version },
        ...(config.log.pretty !== undefined ? { pretty: config.log.pretty } : {}),
      });
      log.info(
        { configFile: file ?? null, configSource: source, environment: config.environment, dataDir: config.dataDir },
        `terminal-agent ${version} starting`,
      );
      // SIGHUP (`systemctl reload`, a closed ssh session) reloads the configuration instead of
      // ending the agent, which systemd would count as a clean exit and not restart
      // (docs/operations.md, "Reloading the configuration"). Installed before start-up, kept
      // while it stops; the reload module is loaded at the first SIGHUP only.
      let reloader: Promise<Reloader> | undefined;
      const hangUp = (): void => {
        reloader ??= import('../reload.js').then(({ configReloader }) =>
          configReloader({
            started: { config, file, source, reason },
            load: () => configFor(cmd),
            logLevel: logLevelControl(log),
            log,
          }),
        );
        void reloader.then((r) => r.reload());
      };
      process.on('SIGHUP', hangUp);
      try {
        const agent = await startAgent({ config, log });
        // The handlers first: whoever reads the counter page line may stop the agent at once.
        const stopped = new Promise<void>((resolve) => {
          const stop = (signal: NodeJS.Signals): void => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            log.info({ signal }, 'stopping');
            void agent.stop().then(resolve);
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        // For people and the scripts that start it; under systemd stdout is the journal, which
        // takes JSON log lines only (the log line `counter page: …` says the same there).
        if (opts.json) process.stdout.write(`${JSON.stringify({ counterPage: `${agent.url}/`, version })}\n`);
        else if (process.stdout.isTTY === true) process.stdout.write(`\n  Counter page: ${agent.url}/\n\n`);
        else if (!isJournalStream(1)) process.stdout.write(`Counter page: ${agent.url}/\n`);
        await stopped;
      } finally {
        // Commands run in-process (tests) leave no listener behind.
        process.off('SIGHUP', hangUp);
      }
      log.flush();
    });
}
