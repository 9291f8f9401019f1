import { describe, it, expect } from 'vitest';
import { createLogger, redactPaths, REDACTED, scrubSecrets, SECRET_KEYS } from '../../src/core/logger.js';
import { LogSink, testLogger } from '../helpers/log-sink.js';

/** `value` wrapped in `depth` levels of objects: depth 0 = { [key]: value }. */
function nested(key: string, value: string, depth: number): Record<string, unknown> {
  let obj: Record<string, unknown> = { [key]: value, keep: `kept-${depth}` };
  for (let d = 0; d < depth; d++) obj = { [`level${d}`]: obj, keep: `outer-${d}` };
  return obj;
}

function secretFor(key: string, where: string): string {
  return `SECRET-${key}-${where}-value`;
}

describe('logger redaction', () => {
  it('redacts every secret key at the top level and nested one to four levels deep, keeping other fields', () => {
    const { log, sink } = testLogger();
    for (const key of SECRET_KEYS) {
      for (let depth = 0; depth <= 4; depth++) log.info(nested(key, secretFor(key, `d${depth}`), depth), 'nested');
    }
    expect(sink.lines).toHaveLength(SECRET_KEYS.length * 5);
    const text = sink.text();
    for (const key of SECRET_KEYS)
      for (let depth = 0; depth <= 4; depth++) expect(text).not.toContain(secretFor(key, `d${depth}`));
    // The structure and the other fields survive, with the censor in place of the value.
    const deepest = sink.records()[4] as Record<string, unknown>;
    let node = deepest;
    for (let d = 3; d >= 0; d--) {
      expect(node.keep).toBe(`outer-${d}`);
      node = node[`level${d}`] as Record<string, unknown>;
    }
    expect(node).toEqual({ [SECRET_KEYS[0]]: REDACTED, keep: 'kept-4' });
  });

  it('redacts secrets inside arrays of objects (wildcards match array indices)', () => {
    const { log, sink } = testLogger();
    for (const key of SECRET_KEYS) {
      log.info(
        {
          items: [
            { [key]: secretFor(key, 'a0'), id: 1 },
            { [key]: secretFor(key, 'a1'), id: 2 },
          ],
        },
        'array',
      );
      log.info({ batch: { rows: [{ [key]: secretFor(key, 'a2'), id: 3 }] } }, 'array in object');
      log.info({ pages: [[{ [key]: secretFor(key, 'a3') }]] }, 'array of arrays');
    }
    const text = sink.text();
    for (const key of SECRET_KEYS)
      for (const w of ['a0', 'a1', 'a2', 'a3']) expect(text).not.toContain(secretFor(key, w));
    const first = sink.records()[0] as { items: Array<Record<string, unknown>> };
    expect(first.items).toEqual([
      { [SECRET_KEYS[0]]: REDACTED, id: 1 },
      { [SECRET_KEYS[0]]: REDACTED, id: 2 },
    ]);
  });

  it('redacts secrets in properties of a logged error and in child logger bindings', () => {
    const { log, sink } = testLogger();
    const err = Object.assign(new Error('token grant failed'), { details: { client_secret: 'SECRET-in-error' } });
    log.error({ err }, 'grant failed');
    log
      .child({ module: 'auth', accessToken: 'SECRET-in-binding' })
      .info({ headers: { Authorization: 'Bearer SECRET-in-header' } }, 'call');
    const text = sink.text();
    expect(text).not.toContain('SECRET-in-error');
    expect(text).not.toContain('SECRET-in-header');
    expect(text).toContain('token grant failed');
    expect(text).toContain('"module":"auth"');
    // pino serializes child bindings once, when the child is made; they go through redact too.
    expect(text).not.toContain('SECRET-in-binding');
  });

  it('redacts secret keys deeper than four levels too, inside arrays, without changing the logged objects', () => {
    const sink = new LogSink();
    const log = createLogger({ destination: sink, level: 'info' });
    const deep = { a: { b: { c: { d: { e: { f: [{ clientSecret: 'SECRET-deep' }], kept: 'visible' } } } } } };
    const before = JSON.stringify(deep);
    log.info({ deep }, 'nested');
    const text = sink.text();
    expect(text).not.toContain('SECRET-deep');
    expect(text).toContain('visible');
    expect(text).toContain(REDACTED);
    // The caller's object is left as it was (copy on write).
    expect(JSON.stringify(deep)).toBe(before);
  });

  it('scrubSecrets returns an object without secrets unchanged (no copy) and one with secrets copied', () => {
    const clean = { a: { b: [1, { c: 'x' }] } };
    expect(scrubSecrets(clean)).toBe(clean);
    const dirty = { a: { token: 't' }, b: { c: 1 } };
    const scrubbed = scrubSecrets(dirty);
    expect(scrubbed).not.toBe(dirty);
    expect(scrubbed).toEqual({ a: { token: REDACTED }, b: { c: 1 } });
    expect(scrubbed.b).toBe(dirty.b);
    expect(dirty.a.token).toBe('t');
  });

  it('pino redact paths name every secret key at the top level', () => {
    expect(redactPaths()).toEqual(expect.arrayContaining([...SECRET_KEYS]));
  });

  it('writes JSON lines to the given destination even when pretty output is asked for', () => {
    const sink = new LogSink();
    const log = createLogger({ destination: sink, pretty: true, level: 'info' });
    log.info({ password: 'SECRET-pretty' }, 'hello');
    expect(sink.lines).toHaveLength(1);
    const record = JSON.parse(sink.lines[0] as string) as Record<string, unknown>;
    expect(record).toMatchObject({ msg: 'hello', password: REDACTED, level: 30, name: 'terminal-agent' });
  });
});
