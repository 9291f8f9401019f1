import { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';
import { createLogger, type Logger } from '../../src/core/index.js';

/** A pino destination that keeps every NDJSON line, so tests assert on structured logs. */
export class LogSink extends Writable implements DestinationStream {
  readonly lines: string[] = [];

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') this.lines.push(line);
    cb();
  }

  records(): Array<Record<string, unknown>> {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  text(): string {
    return this.lines.join('\n');
  }
}

export function testLogger(level: 'trace' | 'debug' | 'info' = 'debug'): { log: Logger; sink: LogSink } {
  const sink = new LogSink();
  return { log: createLogger({ level, destination: sink }), sink };
}
