import type { Duplex } from 'node:stream';
import { unpackModules, type LinkPayload } from '../../devices/index.js';
import { SimFramedDevice, type SimDeviceOptions } from './sim-framed-device.js';

export type SimulatedScreen =
  | { kind: 'blank' }
  | { kind: 'qr'; size: number; matrix: boolean[][]; caption: string }
  | { kind: 'text'; lines: string[] };

export const SIM_DISPLAY_INFO = { model: 'SIM-DISPLAY-1', width: 240, height: 320 };

/** A customer display that speaks docs/serial-protocol.md, "Customer display", and keeps what it shows. */
export class SimulatedDisplay extends SimFramedDevice {
  screen: SimulatedScreen = { kind: 'blank' };
  /** The last QR drawn, decoded back from the packed matrix. */
  lastQr: { size: number; matrix: boolean[][]; caption: string } | undefined;
  lastText: string[] | undefined;
  /** When true, requests are acknowledged by the link but never answered (`done` never comes). */
  mute = false;

  constructor(stream: Duplex, opts: SimDeviceOptions) {
    super(stream, opts);
  }

  protected handle(m: LinkPayload): void {
    if (this.mute) return;
    switch (m.type) {
      case 'hello':
        void this.reply({ type: 'hello', id: m.id, ...SIM_DISPLAY_INFO });
        return;
      case 'showQr': {
        const size = m.size;
        let matrix: boolean[][];
        try {
          if (
            typeof size !== 'number' ||
            !Number.isInteger(size) ||
            size < 21 ||
            size > 177 ||
            typeof m.modules !== 'string'
          )
            throw new Error('bad');
          matrix = unpackModules(size, Buffer.from(m.modules, 'base64'));
        } catch {
          void this.reply({ type: 'error', id: m.id, code: 'bad_request' });
          return;
        }
        const caption = typeof m.caption === 'string' ? m.caption : '';
        this.lastQr = { size, matrix, caption };
        this.screen = { kind: 'qr', ...this.lastQr };
        void this.reply({ type: 'done', id: m.id });
        return;
      }
      case 'showText': {
        const lines = Array.isArray(m.lines) ? m.lines.filter((l): l is string => typeof l === 'string') : [];
        if (!Array.isArray(m.lines) || lines.length !== m.lines.length || lines.length > 4) {
          void this.reply({ type: 'error', id: m.id, code: 'bad_request' });
          return;
        }
        this.lastText = lines;
        this.screen = { kind: 'text', lines };
        void this.reply({ type: 'done', id: m.id });
        return;
      }
      case 'clear':
        this.screen = { kind: 'blank' };
        void this.reply({ type: 'done', id: m.id });
        return;
      default:
        this.unknownType(m);
    }
  }
}
