import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DevCertPaths } from '../../src/identity/index.js';

/**
 * How production runs node (docs/operations.md, "Memory settings"): the package's launcher
 * (scripts/package/terminal-agent.sh, which the systemd unit starts) and `npm start` pass the
 * same flags and environment; test/deploy/memory-settings.test.ts checks that they agree.
 * A young generation of 1 MiB per semi-space instead of up to 16 (V8 grows it under
 * allocation, and keeps it), V8's optimizing compiler off (its code and work memory are
 * never paged in; JavaScript runs in the interpreter and the baseline compiler's code), and
 * one malloc arena instead of one per thread that allocates.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--disable-optimizing-compilers'];
export const PRODUCTION_NODE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1' };

/**
 * A terminal's configuration as production runs it, for checks on one machine: a real
 * environment (not local, so no embedded demo platform), real serial ports configured
 * (paths that do not exist here: the supervisors wait for them), the platform at an
 * https loopback port nobody listens on (start-up never waits for it), the local API on
 * port 0. Written to `dir`/production.json; answers its path.
 */
export function writeProductionConfig(dir: string, certs: DevCertPaths): string {
  const file = join(dir, 'production.json');
  const platform = 'https://127.0.0.1:9';
  const config = {
    environment: 'eu',
    dataDir: join(dir, 'data'),
    identity: { certFile: certs.deviceCert, keyFile: certs.deviceKey, caFile: certs.caCert },
    platform: { baseUrl: platform, authUrl: platform, deviceAuthUrl: platform, timeZone: 'UTC' },
    devices: {
      simulate: false,
      reader: { path: '/dev/ttyTERMINALAGENTNONE0' },
      display: { path: '/dev/ttyTERMINALAGENTNONE1' },
      scanner: { path: '/dev/ttyTERMINALAGENTNONE2' },
    },
    api: { port: 0 },
    sim: { embedded: false },
    log: { level: 'info', pretty: false },
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/**
 * A debug hook for a child node process: `--import <register>` makes it append the URL of
 * every ES module it loads to `log`, one a line (module customization hooks, node:module
 * register), and, on SIGUSR2 (the agent does not use it), node's built-in modules it loaded so
 * far (`process.moduleLoadList`, e.g. "NativeModule internal/deps/undici/undici") and the
 * files of the CommonJS modules it required to `loaded`, and "Intl.DateTimeFormat made N" once it made
 * any date formatter (also through Date's toLocale… methods) (the first pages in ICU's date data: docs/performance.md, "Memory"). Nothing of it is in the agent; it is written to `dir` as plain JavaScript.
 */
export function moduleRecorder(dir: string): { importArgs: string[]; log: string; loaded: string } {
  const log = join(dir, 'modules.txt');
  const loaded = join(dir, 'loaded.txt');
  const hooks = join(dir, 'module-hooks.mjs');
  const register = join(dir, 'module-register.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(log)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  writeFileSync(
    register,
    `import { register, createRequire } from 'node:module';\nimport { pathToFileURL } from 'node:url';\nimport { writeFileSync } from 'node:fs';\nregister(pathToFileURL(${JSON.stringify(hooks)}));\nconst cache = createRequire(import.meta.url).cache;\nlet formatters = 0;\nconst Formatter = Intl.DateTimeFormat;\nIntl.DateTimeFormat = new Proxy(Formatter, { construct: (t, a) => (formatters++, new t(...a)), apply: (t, _, a) => (formatters++, t(...a)) });\nfor (const k of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {\n  const f = Date.prototype[k];\n  Date.prototype[k] = function (...a) { formatters++; return f.apply(this, a); };\n}\nconst write = () => writeFileSync(${JSON.stringify(loaded)}, [...process.moduleLoadList, ...Object.keys(cache), ...(formatters > 0 ? [\`Intl.DateTimeFormat made \${formatters}\`] : [])].join('\\n') + '\\n');\nprocess.on('SIGUSR2', write);\n`,
  );
  writeFileSync(log, '');
  writeFileSync(loaded, '');
  return { importArgs: ['--import', register], log, loaded };
}
