import { afterEach, describe, expect, it } from 'vitest';
import { isAgentError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { encodeAck, encodeFrame, encodeNak } from '../../src/devices/link/frame.js';
import { Link } from '../../src/devices/link/link.js';
import { ManualClock } from './manual-clock.js';
import { FakePort, flush, wirePair } from './fake-wire.js';
import { testLogger } from '../helpers/log-sink.js';

const links: Link[] = [];
afterEach(() => {
  for (const l of links.splice(0)) l.close();
});

function linkOn(port: FakePort, clock: ManualClock, initialSeq = 10, log = silentLogger()): Link {
  const link = new Link({ stream: port, log, clock, initialSeq });
  links.push(link);
  return link;
}

interface Settled<T> {
  state: 'pending' | 'resolved' | 'rejected';
  value?: T;
  error?: unknown;
}

function settle<T>(p: Promise<T>): { result: () => Settled<T> } {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  let value: T | undefined;
  let error: unknown;
  p.then(
    (v) => {
      state = 'resolved';
      value = v;
    },
    (e: unknown) => {
      state = 'rejected';
      error = e;
    },
  );
  return { result: () => ({ state, value, error }) };
}

describe('Link', () => {
  it('sends a frame and resolves on its ACK', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const sent = settle(link.send({ type: 'hello', id: 'a1' }));
    await flush();
    expect(port.takeWritten()).toEqual(encodeFrame(10, { type: 'hello', id: 'a1' }));
    port.feed(encodeAck(10));
    await flush();
    expect(sent.result().state).toBe('resolved');
    expect(link.counters).toMatchObject({ framesSent: 1, acksReceived: 1, retransmissions: 0 });
  });

  it('retransmits the same frame with the same SEQ when the ACK is lost (rule 1)', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const sent = settle(link.send({ type: 'showText', id: 'b', lines: ['hi'] }));
    await flush();
    const first = port.takeWritten();
    clock.advance(499);
    await flush();
    expect(port.takeWritten().length).toBe(0);
    clock.advance(1);
    await flush();
    expect(port.takeWritten()).toEqual(first);
    port.feed(encodeAck(10));
    await flush();
    expect(sent.result().state).toBe('resolved');
    expect(link.counters.retransmissions).toBe(1);
  });

  it('retransmits at once on NAK', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const sent = settle(link.send({ type: 'clear', id: 'c' }));
    await flush();
    const first = port.takeWritten();
    port.feed(encodeNak(10));
    await flush();
    expect(port.takeWritten()).toEqual(first);
    port.feed(encodeAck(10));
    await flush();
    expect(sent.result().state).toBe('resolved');
    expect(link.counters).toMatchObject({ naksReceived: 1, retransmissions: 1 });
  });

  it('gives up after 3 retransmissions with LINK_NO_ACK and goes on with the next message', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const failures: string[] = [];
    link.onFailure((e) => failures.push(e.code));
    const first = settle(link.send({ type: 'hello', id: '1' }));
    const second = settle(link.send({ type: 'hello', id: '2' }));
    await flush();
    const frame = port.takeWritten();
    for (let i = 0; i < 3; i++) {
      clock.advance(500);
      await flush();
      expect(port.takeWritten()).toEqual(frame);
    }
    expect(first.result().state).toBe('pending');
    clock.advance(500);
    await flush();
    const r = first.result();
    expect(r.state).toBe('rejected');
    expect(isAgentError(r.error, 'LINK_NO_ACK')).toBe(true);
    expect(failures).toEqual(['LINK_NO_ACK']);
    expect(link.counters).toMatchObject({ retransmissions: 3, noAck: 1 });
    // The next message goes out with the next SEQ.
    expect(port.takeWritten()).toEqual(encodeFrame(11, { type: 'hello', id: '2' }));
    port.feed(encodeAck(11));
    await flush();
    expect(second.result().state).toBe('resolved');
  });

  it('keeps one frame in flight: a second message waits for the first ACK (rule 5)', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock, 255);
    const a = settle(link.send({ type: 'a' }));
    const b = settle(link.send({ type: 'b' }));
    await flush();
    expect(port.takeWritten()).toEqual(encodeFrame(255, { type: 'a' }));
    port.feed(encodeAck(255));
    await flush();
    // SEQ wraps after 255.
    expect(port.takeWritten()).toEqual(encodeFrame(0, { type: 'b' }));
    port.feed(encodeAck(0));
    await flush();
    expect([a.result().state, b.result().state]).toEqual(['resolved', 'resolved']);
  });

  it('ignores an ACK for an unknown SEQ', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const sent = settle(link.send({ type: 'a' }));
    await flush();
    port.feed(encodeAck(99));
    await flush();
    expect(sent.result().state).toBe('pending');
    expect(link.counters.strayAcks).toBe(1);
    port.feed(encodeAck(10));
    await flush();
    expect(sent.result().state).toBe('resolved');
  });

  it('acknowledges a received frame and delivers it', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const got: unknown[] = [];
    link.onMessage((m) => got.push(m));
    port.feed(encodeFrame(33, { type: 'hello', id: 'x', model: 'M' }));
    await flush();
    expect(port.takeWritten()).toEqual(encodeAck(33));
    expect(got).toEqual([{ type: 'hello', id: 'x', model: 'M' }]);
  });

  it('acknowledges a duplicate again but delivers it once (rule 2)', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const got: unknown[] = [];
    link.onMessage((m) => got.push(m));
    const f = encodeFrame(4, { type: 'done', id: 'd' });
    port.feed(f);
    port.feed(f);
    await flush();
    expect(port.takeWritten()).toEqual(Buffer.concat([encodeAck(4), encodeAck(4)]));
    expect(got).toHaveLength(1);
    expect(link.counters.duplicates).toBe(1);
    // A new SEQ is delivered again.
    port.feed(encodeFrame(5, { type: 'done', id: 'e' }));
    await flush();
    expect(got).toHaveLength(2);
  });

  it('NAKs a damaged frame with its SEQ and does not deliver it', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const got: unknown[] = [];
    link.onMessage((m) => got.push(m));
    const bad = encodeFrame(21, { type: 'done', id: 'd' });
    bad[6] = (bad[6] as number) ^ 0x20;
    port.feed(bad);
    port.feed(encodeFrame(22, Buffer.from('not json')));
    await flush();
    expect(port.takeWritten()).toEqual(Buffer.concat([encodeNak(21), encodeNak(22)]));
    expect(got).toEqual([]);
    // The sender retransmits the same SEQ intact: delivered (a NAKed SEQ is not "accepted").
    port.feed(encodeFrame(21, { type: 'done', id: 'd' }));
    await flush();
    expect(got).toEqual([{ type: 'done', id: 'd' }]);
  });

  it('runs both directions at once between two links', async () => {
    const clock = new ManualClock();
    const [a, b] = wirePair();
    const left = linkOn(a, clock, 1);
    const right = linkOn(b, clock, 200);
    const leftGot: unknown[] = [];
    const rightGot: unknown[] = [];
    left.onMessage((m) => leftGot.push(m));
    right.onMessage((m) => rightGot.push(m));
    const s1 = left.send({ type: 'hello', id: 'l' });
    const s2 = right.send({ type: 'hello', id: 'r' });
    await Promise.all([s1, s2]);
    expect(leftGot).toEqual([{ type: 'hello', id: 'r' }]);
    expect(rightGot).toEqual([{ type: 'hello', id: 'l' }]);
  });

  it('refuses a message over 4096 bytes with LINK_OVERSIZE before writing anything', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    await expect(link.send({ type: 'showQr', modules: 'A'.repeat(5000) })).rejects.toMatchObject({
      code: 'LINK_OVERSIZE',
    });
    expect(port.written).toHaveLength(0);
  });

  it('fails pending and queued messages with DEVICE_DISCONNECTED when closed', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const link = linkOn(port, clock);
    const a = link.send({ type: 'a' });
    const b = link.send({ type: 'b' });
    link.close('port closed');
    await expect(a).rejects.toMatchObject({ code: 'DEVICE_DISCONNECTED' });
    await expect(b).rejects.toMatchObject({ code: 'DEVICE_DISCONNECTED' });
    expect(clock.count).toBe(0);
  });

  it('hex-dumps frames at trace level but never a frame carrying card data', async () => {
    const clock = new ManualClock();
    const port = new FakePort();
    const { log, sink } = testLogger('trace');
    const link = linkOn(port, clock, 1, log);
    link.onMessage(() => {});
    const secret = 'DEADBEEFCAFE0123456789';
    const pin = 'ABCDEF9876543210';
    port.feed(
      encodeFrame(1, {
        type: 'cardResult',
        id: 'p',
        outcome: 'ok',
        entryMode: 'ContactChip',
        card: { maskedPan: '476173******0010', scheme: 'visa', expiry: '2812', encryptedData: secret, ksn: 'FFFF' },
        pin: { pinblock: pin, ksn: 'FFFF', format: 'ISO0' },
      }),
    );
    port.feed(encodeFrame(2, { type: 'hello', id: 'h' }));
    await flush();
    const text = sink.text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from(secret).toString('hex'));
    expect(text).not.toContain(pin);
    expect(text).not.toContain(Buffer.from(pin).toString('hex'));
    expect(text).toContain(encodeFrame(2, { type: 'hello', id: 'h' }).toString('hex'));
  });
});
