import type { Server as NetServer, Socket } from 'node:net';
import type { Logger } from '../../core/index.js';

export interface ConnectionLimits {
  /** Open connections from one address (api.lan.maxConnectionsPerPeer). */
  perPeer: number;
  /** Open connections in all (api.lan.maxConnections). */
  total: number;
}

/**
 * Caps the store-network listener's connections, per peer and in all (docs/registers.md,
 * "Registers on the store network"): anything on the store network can connect, and each
 * connection held costs a terminal memory and file descriptors. A connection over a cap is
 * closed before TLS starts, with one warning per peer while it stays over.
 */
export function limitConnections(server: NetServer, limits: ConnectionLimits, log: Logger): void {
  const open = new Map<string, number>();
  const warned = new Set<string>();
  server.maxConnections = limits.total;
  server.on('drop', (data?: { remoteAddress?: string }) => {
    log.warn(
      { peer: data?.remoteAddress, maxConnections: limits.total },
      'store-network connection closed: the listener holds api.lan.maxConnections connections already',
    );
  });
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? 'unknown';
    const count = open.get(peer) ?? 0;
    if (count >= limits.perPeer) {
      if (!warned.has(peer)) {
        warned.add(peer);
        log.warn(
          { peer, maxConnectionsPerPeer: limits.perPeer },
          'store-network connection closed: this peer holds api.lan.maxConnectionsPerPeer connections already',
        );
      }
      socket.destroy();
      return;
    }
    open.set(peer, count + 1);
    socket.once('close', () => {
      const left = (open.get(peer) ?? 1) - 1;
      if (left > 0) open.set(peer, left);
      else open.delete(peer);
      warned.delete(peer);
    });
  });
}
