import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sleep } from './stats.js';

/** global.gc when node ran with --expose-gc, else the same function obtained at run time. */
function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Full collections with pauses between, so finalizers and freed native memory settle before RSS is read. */
export async function forceGc(rounds = 3): Promise<void> {
  const gc = gcFunction();
  for (let i = 0; i < rounds; i++) {
    gc();
    await sleep(50);
  }
}
