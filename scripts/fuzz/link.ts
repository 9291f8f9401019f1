/**
 * The long link fuzz run: `npm run fuzz:link [-- --inputs N --seed S]` (default 2M inputs,
 * a random seed). The agent's FrameParser against the reference decoder written from
 * docs/serial-protocol.md (test/devices/link-reference.ts); the same harness runs 300k
 * inputs in `npm test` (test/devices/link-fuzz.test.ts). Exits 1 on the first difference,
 * printing the seed to replay it with.
 */
import { runLinkFuzz } from '../../test/devices/link-fuzz-harness.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const inputs = Number(arg('inputs') ?? 2_000_000);
const seed = Number(arg('seed') ?? process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const t0 = performance.now();
const report = runLinkFuzz({ seed, inputs });
const seconds = ((performance.now() - t0) / 1000).toFixed(1);
console.log(
  `link fuzz: seed ${seed}, ${report.inputs} inputs, ${report.bytes} bytes in ${report.segments} segments, ${seconds} s; compared ${report.compared.frame} frames, ${report.compared.damaged} damaged, ${report.compared.ack} ACKs, ${report.compared.nak} NAKs; parser errors ${report.errors}`,
);
if (report.mismatch !== undefined || report.errors > 0) {
  console.error(`FAIL: ${report.mismatch ?? `${report.errors} parser stream errors`}`);
  process.exitCode = 1;
} else {
  console.log('OK: every unit matched the reference decoder');
}
