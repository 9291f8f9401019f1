import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../src/agent.js';
import type { LogSink } from '../helpers/log-sink.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The store-network listener's limits (docs/registers.md, "Registers on the store network"):
 * a socket that never starts TLS is closed after api.lan.handshakeSeconds, and connections
 * over api.lan.maxConnectionsPerPeer or api.lan.maxConnections are closed at once with a
 * warning. Peers are told apart by their source address (127.0.0.x on loopback).
 */
let running: TestAgent;
let agent: RunningAgent;
let sink: LogSink;
let port: number;
let cleanup: () => void;
const sockets: Socket[] = [];

beforeAll(async () => {
  const data = tempDir('terminal-agent-lan-limits-');
  cleanup = data.cleanup;
  running = await startTestAgent({
    flags: {
      dataDir: data.dir,
      api: {
        port: 0,
        lan: {
          enabled: true,
          host: '0.0.0.0',
          port: 0,
          hostNames: ['127.0.0.1'],
          handshakeSeconds: 1,
          maxConnectionsPerPeer: 2,
          maxConnections: 3,
        },
      },
    },
  });
  ({ agent, sink } = running);
  port = Number(new URL(agent.lan!.url).port);
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await running?.stop();
  cleanup?.();
});

/** A plain TCP connection from `from` that never starts TLS; resolves once connected. */
async function openFrom(from: string): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

function closed(socket: Socket): Promise<void> {
  return socket.destroyed || socket.closed
    ? Promise.resolve()
    : new Promise((resolve) => socket.once('close', () => resolve()));
}

/** Whether the server closed `socket` within `ms` (the wait only bounds the test, it measures nothing). */
async function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return Promise.race([closed(socket).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

describe('store-network connection limits', () => {
  it('a connection that never starts TLS is closed after api.lan.handshakeSeconds', async () => {
    const idle = await openFrom('127.0.0.9');
    expect(await closedWithin(idle, 4_000)).toBe(true);
  });

  it('a third connection from one peer is closed at once with a warning naming the setting; another peer still connects', async () => {
    const a1 = await openFrom('127.0.0.2');
    const a2 = await openFrom('127.0.0.2');
    const a3 = await openFrom('127.0.0.2');
    await closed(a3);
    expect(a1.destroyed || a2.destroyed).toBe(false);
    expect(
      sink.records().some((r) => String(r.msg).includes('api.lan.maxConnectionsPerPeer') && r.peer === '127.0.0.2'),
    ).toBe(true);
    // Over the total: the fourth connection of all, from a third peer.
    const b1 = await openFrom('127.0.0.3');
    expect(b1.destroyed).toBe(false);
    const c1 = await openFrom('127.0.0.4');
    await closed(c1);
    expect(
      sink
        .records()
        .some((r) => String(r.msg).includes('api.lan.maxConnections connections') && r.maxConnections === 3),
    ).toBe(true);
    for (const s of [a1, a2, b1]) s.destroy();
  });
});
