import { Option, type Command } from 'commander';
import { dirname } from 'node:path';
import { configFor } from '../options.js';

/** `terminal-agent sim`: the demo platform on its own, for field engineers and manual tests. */
export function register(program: Command): void {
  program
    .command('sim')
    .description('run the demo payment platform (auth server, payment API, wallet providers) on loopback')
    .option('--host <address>', 'address to listen on')
    // Not --api-port: that global option is the local API's port.
    .option('--port <port>', 'HTTPS port of the security host and payment API (0 = any)')
    .option('--mtls-port <port>', 'device token mTLS port (0 = any)')
    .option('--certs <dir>', 'directory of the dev PKI (generated when missing)')
    .addOption(
      new Option(
        '--profile <name>',
        'standard, or strict: answers from the extremes the platform contract allows (sim.profile)',
      ).choices(['standard', 'strict']),
    )
    .action(
      async (
        opts: { host?: string; port?: string; mtlsPort?: string; certs?: string; profile?: string; json?: boolean },
        cmd: Command,
      ) => {
        const { config } = await configFor(cmd);
        const { createLogger, AgentError, ErrorCodes } = await import('../../core/index.js');
        const { generateDevCerts } = await import('../../identity/index.js');
        const { demoPlatformConfig, startDemoPlatform, isSimProfileName, SIM_PROFILES } =
          await import('../../sim/index.js');
        const log = createLogger({
          level: config.log.level,
          ...(config.log.pretty !== undefined ? { pretty: config.log.pretty } : {}),
        });
        const certs = generateDevCerts(opts.certs ?? dirname(config.identity.caFile));
        const base = demoPlatformConfig(config.sim);
        if (opts.profile !== undefined && !isSimProfileName(opts.profile)) {
          throw new AgentError(
            ErrorCodes.CONFIG_INVALID,
            `--profile must be one of ${SIM_PROFILES.join(', ')}, not ${opts.profile.slice(0, 20)}`,
          );
        }
        const platform = await startDemoPlatform({
          ...base,
          ...(opts.profile !== undefined ? { settings: { ...base.settings, profile: opts.profile } } : {}),
          ...(opts.host !== undefined ? { host: opts.host } : {}),
          ...(opts.port !== undefined ? { apiPort: Number(opts.port) } : {}),
          ...(opts.mtlsPort !== undefined ? { mtlsPort: Number(opts.mtlsPort) } : {}),
          tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert },
          log,
        });
        if (opts.json)
          process.stdout.write(
            `${JSON.stringify({ profile: platform.context.profile.name, api: platform.urls.api, deviceAuth: platform.urls.mtls })}\n`,
          );
        else
          process.stdout.write(
            `demo platform (${platform.context.profile.name} profile): api ${platform.urls.api}  device auth ${platform.urls.mtls}\n`,
          );
        // Nothing to reload: SIGHUP (a closed ssh session) must not end the demo platform mid-demo.
        const hangUp = (): void =>
          log.info('SIGHUP ignored: the demo platform has nothing to reload (stop it with Ctrl-C or SIGTERM)');
        process.on('SIGHUP', hangUp);
        await new Promise<void>((resolve) => {
          const stop = (): void => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            void platform.stop().then(resolve);
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        process.off('SIGHUP', hangUp);
      },
    );
}
