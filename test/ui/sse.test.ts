import { afterEach, describe, expect, it } from 'vitest';
import { readSse, type SseMessage } from '../helpers/http-client.js';
import { startApi, type Started } from '../helpers/local-api.js';

const byEvent = (messages: SseMessage[], event: string) => messages.filter((m) => m.event === event);

describe('server-sent events', () => {
  let s: Started | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('needs the token', async () => {
    s = await startApi();
    const r = await readSse(s.url, {}, () => true);
    expect(r.status).toBe(401);
  });

  it('sends every bus event live with id = seq, after a hello naming the run', async () => {
    s = await startApi();
    const started = s;
    const stream = readSse(started.url, started.auth, (m) => {
      if (m.length === 1) {
        // Connected: publish now.
        started.bus.publish('platform.status', { online: false, reason: 'timeout' });
        started.bus.publish('reader.progress', { step: 'insert_card' });
      }
      return m.length >= 3;
    });
    const r = await stream;
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(r.messages[0]?.event).toBe('hello');
    expect(JSON.parse(r.messages[0]?.data ?? '{}')).toMatchObject({ lastSeq: 0 });
    expect(r.messages.slice(1).map((m) => [m.id, m.event])).toEqual([
      ['1', 'platform.status'],
      ['2', 'reader.progress'],
    ]);
    expect(JSON.parse(r.messages[2]?.data ?? '{}')).toMatchObject({
      seq: 2,
      type: 'reader.progress',
      data: { step: 'insert_card' },
    });
  });

  it('a client reconnecting with Last-Event-ID gets exactly what it missed', async () => {
    s = await startApi();
    for (let i = 0; i < 5; i++) s.bus.publish('scanner.line', { length: i });
    const r = await readSse(s.url, { ...s.auth, 'last-event-id': '2' }, (m) => m.length >= 4);
    expect(r.messages.map((m) => m.event)).toEqual(['hello', 'scanner.line', 'scanner.line', 'scanner.line']);
    expect(r.messages.slice(1).map((m) => m.id)).toEqual(['3', '4', '5']);
    expect(byEvent(r.messages, 'resync')).toEqual([]);
  });

  it('a client that is up to date gets nothing replayed', async () => {
    s = await startApi();
    s.bus.publish('scanner.line', { length: 1 });
    const started = s;
    const r = await readSse(s.url, { ...s.auth, 'last-event-id': '1' }, (m) => {
      if (m.length === 1) started.bus.publish('scanner.line', { length: 2 });
      return m.length >= 2;
    });
    expect(r.messages.map((m) => m.id ?? m.event)).toEqual(['hello', '2']);
  });

  it('tells a client to resync when the gap is no longer buffered', async () => {
    s = await startApi({ extra: { sse: { capacity: 3 } } });
    for (let i = 0; i < 10; i++) s.bus.publish('scanner.line', { length: i });
    const r = await readSse(s.url, { ...s.auth, 'last-event-id': '4' }, (m) => m.length >= 2);
    expect(r.messages[1]).toMatchObject({ event: 'resync', id: '10' });
    expect(JSON.parse(r.messages[1]?.data ?? '{}')).toMatchObject({ lastSeq: 10 });
    // The edge: the oldest buffered event is 8; a client that saw 7 misses nothing.
    const edge = await readSse(s.url, { ...s.auth, 'last-event-id': '7' }, (m) => m.length >= 4);
    expect(edge.messages.slice(1).map((m) => m.id)).toEqual(['8', '9', '10']);
  });

  it('tells a client to resync after an agent restart (its id is ahead of ours)', async () => {
    s = await startApi();
    s.bus.publish('scanner.line', { length: 1 });
    const r = await readSse(s.url, { ...s.auth, 'last-event-id': '500' }, (m) => m.length >= 2);
    expect(r.messages[1]?.event).toBe('resync');
    const junk = await readSse(s.url, { ...s.auth, 'last-event-id': 'abc' }, (m) => m.length >= 2);
    expect(junk.messages[1]?.event).toBe('resync');
  });

  it('sends heartbeat comments', async () => {
    s = await startApi({ extra: { sse: { heartbeatMs: 20 } } });
    const r = await readSse(s.url, s.auth, (m) => m.some((x) => x.comment === 'ping'));
    expect(r.messages.some((m) => m.comment === 'ping')).toBe(true);
  });

  it('stop ends open streams', async () => {
    s = await startApi();
    const started = s;
    const r = await readSse(started.url, started.auth, (m) => {
      if (m.length === 1) void started.api.stop();
      return false;
    });
    expect(r.messages.map((m) => m.event)).toEqual(['hello']);
  });
});
