import { execFile } from 'node:child_process';
import type { Logger } from 'pino';

export interface NotifyOptions {
  /** Where NOTIFY_SOCKET and PATH are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** A short status line systemctl status shows. */
  status?: string;
  timeoutMs?: number;
}

/**
 * Tells systemd the agent is ready (Type=notify; docs/operations.md, "systemd unit").
 * Node cannot send to a Unix datagram socket without a native module, so the agent runs
 * `systemd-notify --ready` when systemd gave it a NOTIFY_SOCKET; the unit allows children
 * to notify (NotifyAccess=all), and systemd-notify waits until systemd has processed the
 * message (systemd 246+), so it is not lost when the helper exits. Without NOTIFY_SOCKET
 * (not under systemd) nothing runs. Never throws: a failure is logged, and systemd's
 * TimeoutStartSec then reports the start as failed.
 */
export function notifySystemdReady(log: Logger, opts: NotifyOptions = {}): Promise<boolean> {
  const env = opts.env ?? process.env;
  if (env.NOTIFY_SOCKET === undefined || env.NOTIFY_SOCKET === '') return Promise.resolve(false);
  const args = ['--ready', ...(opts.status !== undefined ? [`--status=${opts.status}`] : [])];
  return new Promise((resolve) => {
    execFile('systemd-notify', args, { env, timeout: opts.timeoutMs ?? 10_000 }, (err, _stdout, stderr) => {
      if (err !== null) {
        const code = (err as NodeJS.ErrnoException).code;
        log.warn(
          { code, stderr: stderr.trim().slice(0, 200) },
          `systemd-notify --ready failed (${code === 'ENOENT' ? 'systemd-notify not found' : String(code ?? err.message)}): systemd will report the start as timed out`,
        );
        resolve(false);
        return;
      }
      log.debug('readiness reported to systemd');
      resolve(true);
    });
  });
}
