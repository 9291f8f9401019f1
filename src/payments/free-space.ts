import { statfsSync } from 'node:fs';

/** Free blocks of a file system as node's statfs gives them (injectable for tests). */
export type StatFs = (path: string) => { bavail: number | bigint; bsize: number | bigint };

export const defaultStatFs: StatFs = (path) => statfsSync(path);

const MB = 1024 * 1024;

/** Free megabytes in `dir` for unprivileged writers, or undefined when statfs fails. */
export function freeMb(statfs: StatFs, dir: string): number | undefined {
  try {
    const st = statfs(dir);
    return Math.floor((Number(st.bavail) * Number(st.bsize)) / MB);
  } catch {
    return undefined;
  }
}
