import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { testCerts } from '../helpers/certs.js';
import { until } from '../helpers/wait.js';

const BIN = 'dist/src/cli/bin.js';

/** `terminal-agent sim` on any free ports with this run's dev PKI. */
function spawnSim(certsDir: string, ...extra: string[]): ChildProcessWithoutNullStreams {
  return spawn(
    process.execPath,
    [BIN, '--log-level', 'silent', 'sim', '--port', '0', '--mtls-port', '0', '--certs', certsDir, ...extra],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
}

/** The line the command prints once it listens. */
function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`sim exited with ${String(code)} before listening`)));
  });
}

describe('terminal-agent sim', () => {
  it('listens on the ports it is given (0 = any), answers, and stops on SIGTERM', async () => {
    expect(existsSync(BIN), 'run `npx tsc -p .` (npm test builds first)').toBe(true);
    const certs = testCerts();
    const child = spawnSim(certs.dir);
    try {
      const line = await firstLine(child);
      const match = /api (https:\/\/127\.0\.0\.1:(\d+)) {2}device auth https:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      expect(match, line).not.toBeNull();
      const [, apiUrl, apiPort, mtlsPort] = match as RegExpExecArray;
      expect(apiPort).not.toBe('8443');
      expect(mtlsPort).not.toBe('9021');
      // Unauthenticated: the platform answers 401, which proves it is listening with the dev PKI.
      const res = await request(`${apiUrl}/payment/v1/transactions/technical/isAvailable`, {
        dispatcher: new Agent({ connect: { ca: readFileSync(certs.caCert) } }),
      });
      expect(res.statusCode).toBe(401);
      await res.body.dump();
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('starts in the profile it is told, and the control route switches it and refuses an unknown one', async () => {
    const certs = testCerts();
    const child = spawnSim(certs.dir, '--profile', 'strict');
    const dispatcher = new Agent({ connect: { ca: readFileSync(certs.caCert) } });
    try {
      const line = await firstLine(child);
      expect(line).toContain('(strict profile)');
      const apiUrl = (/api (https:\/\/127\.0\.0\.1:\d+)/.exec(line) as RegExpExecArray)[1] as string;
      const profile = async (): Promise<unknown> => {
        const res = await request(`${apiUrl}/sim/control/profile`, { dispatcher });
        return ((await res.body.json()) as { profile: unknown }).profile;
      };
      expect(await profile()).toBe('strict');
      const put = async (body: unknown): Promise<number> => {
        const res = await request(`${apiUrl}/sim/control/profile`, {
          method: 'PUT',
          dispatcher,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        await res.body.dump();
        return res.statusCode;
      };
      expect(await put({ profile: 'standard' })).toBe(204);
      expect(await profile()).toBe('standard');
      expect(await put({ profile: 'lenient' })).toBe(400);
      expect(await profile()).toBe('standard');
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await dispatcher.close();
    }
  });

  it('logs and ignores SIGHUP (a closed ssh session), keeps answering, and stops on SIGTERM', async () => {
    const certs = testCerts();
    const child = spawn(
      process.execPath,
      [BIN, '--log-level', 'info', 'sim', '--port', '0', '--mtls-port', '0', '--certs', certs.dir],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERMINAL_AGENT_LOG__PRETTY: 'false' } },
    );
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (code, signal) => resolve([code, signal])),
    );
    const dispatcher = new Agent({ connect: { ca: readFileSync(certs.caCert) } });
    try {
      // The banner comes after the log lines of start-up, once the signal handlers are in place.
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await until(
        'the banner',
        () => out,
        (o) => /api https:\/\/\S+ {2}device auth/.test(o),
        { everyMs: 25 },
      );
      const apiUrl = (/api (https:\/\/127\.0\.0\.1:\d+) {2}device auth/.exec(out) as RegExpExecArray)[1] as string;
      child.kill('SIGHUP');
      await until(
        'the SIGHUP line',
        () => out,
        (o) => o.includes('SIGHUP ignored'),
        { everyMs: 25 },
      );
      expect(out).toContain('SIGHUP ignored: the demo platform has nothing to reload');
      expect([child.exitCode, child.signalCode]).toEqual([null, null]);
      const res = await request(`${apiUrl}/payment/v1/transactions/technical/isAvailable`, { dispatcher });
      expect(res.statusCode).toBe(401);
      await res.body.dump();
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      await dispatcher.close();
    }
  });

  it('refuses an unknown --profile with a line naming the choices', async () => {
    const certs = testCerts();
    const child = spawnSim(certs.dir, '--profile', 'lenient');
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(64); // a usage error (README, "Exit codes")
    expect(err).toContain("argument 'lenient' is invalid. Allowed choices are standard, strict");
  });
});
