import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Disk-full moments for the chaos run (docs/performance.md, "Chaos"), made by the kernel, not by the
 * agent: the agent process's file-size limit (RLIMIT_FSIZE, set from outside with
 * prlimit(1) on its pid: same user, no root) is lowered to the size its journal's
 * write-ahead log has now. Every write at or beyond that offset in any file is refused with
 * EFBIG (node ignores SIGXFSZ), so the log cannot grow and the journal file cannot be
 * written past it, while pages already in the log are reused: as on a disk with no free
 * block left. SQLite reports SQLITE_IOERR_WRITE (not SQLITE_FULL); the agent treats both
 * alike (docs/journal.md, "Journal", writes that fail). Harsher than a real full disk
 * in one way: a checkpoint's in-place writes into the journal file beyond that offset fail
 * too. The limit is lifted after a while; a restarted agent starts without it. The
 * free-space guard (payments.minFreeDiskMb, statfs) is not what trips here: the file
 * system itself still has room.
 */
export interface DiskFullSwitcher {
  /** Episodes switched on. */
  episodes: number;
  stop(): Promise<void>;
}

function prlimit(pid: number, soft: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('prlimit', ['--pid', String(pid), `--fsize=${soft}:unlimited`], (err) => resolve(err === null));
  });
}

/** Whether prlimit(1) can change a child's file-size limit here (util-linux). */
export async function diskFullAvailable(): Promise<boolean> {
  return prlimit(process.pid, 'unlimited');
}

export function startDiskFullSwitcher(o: {
  pid: () => number | undefined;
  dataDir: string;
  random: () => number;
  onEvent?: (line: string) => void;
}): DiskFullSwitcher {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let limited: number | undefined;
  const state = { episodes: 0 };
  const wal = join(o.dataDir, 'journal.sqlite-wal');
  const lift = async (): Promise<void> => {
    const pid = limited;
    limited = undefined;
    if (pid !== undefined) await prlimit(pid, 'unlimited');
  };
  const quiet = (): void => {
    timer = setTimeout(() => void on(), 1_000 + Math.floor(o.random() * 4_000));
  };
  const on = async (): Promise<void> => {
    if (stopped) return;
    const pid = o.pid();
    if (pid === undefined) return quiet();
    let size: number;
    try {
      size = statSync(wal).size;
    } catch {
      size = 0;
    }
    if (await prlimit(pid, String(size))) {
      limited = pid;
      state.episodes++;
      o.onEvent?.(`disk full (file size limit ${size} bytes) for the agent ${pid}`);
    }
    timer = setTimeout(
      () => {
        void lift().then(() => {
          if (!stopped) quiet();
        });
      },
      300 + Math.floor(o.random() * 2_000),
    );
  };
  quiet();
  return {
    get episodes() {
      return state.episodes;
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await lift();
    },
  };
}
