import { spawn, type ChildProcess } from 'node:child_process';

export interface PtyPair {
  /** The two pseudo-terminal paths (symlinks when `links` were given). */
  a: string;
  b: string;
  process: ChildProcess;
  /** Kills socat and waits for it to exit: both ends vanish, like an unplugged cable. */
  kill(): Promise<void>;
}

/**
 * A pseudo-terminal pair from `socat -d -d pty,raw,echo=0 pty,raw,echo=0`; the /dev/pts
 * paths are parsed from socat's stderr ("N PTY is /dev/pts/X"). With `links`, socat also
 * creates stable symlinks, so a restarted pair keeps its paths.
 */
export function socatPair(links?: { a: string; b: string }): Promise<PtyPair> {
  const end = (link?: string): string => `pty,raw,echo=0${link ? `,link=${link}` : ''}`;
  const child = spawn('socat', ['-d', '-d', end(links?.a), end(links?.b)], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise<PtyPair>((resolve, reject) => {
    const ptys: string[] = [];
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`socat did not start: ${stderr}`));
    }, 10_000);
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      stderr += text;
      for (const m of text.matchAll(/PTY is (\/dev\/pts\/\d+)/g)) ptys.push(m[1] as string);
      if (ptys.length >= 2 && /starting data transfer loop/.test(stderr)) {
        clearTimeout(timer);
        child.stderr?.removeAllListeners('data');
        child.stderr?.resume();
        resolve({
          a: links?.a ?? (ptys[0] as string),
          b: links?.b ?? (ptys[1] as string),
          process: child,
          kill: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
  });
}
