import { AgentError, ErrorCodes } from '../core/index.js';
import { udevFailure, udevListError } from './port-list.js';
import type { SerialBinding, SerialPortInfo } from './serial-port.js';

export interface UsbMatch {
  vendorId: string;
  productId: string;
  serialNumber?: string;
}

function sameHex(a: string | undefined, b: string): boolean {
  return a !== undefined && a.toLowerCase().replace(/^0x/, '') === b.toLowerCase();
}

export function matchesUsb(port: SerialPortInfo, usb: UsbMatch): boolean {
  return (
    sameHex(port.vendorId, usb.vendorId) &&
    sameHex(port.productId, usb.productId) &&
    (usb.serialNumber === undefined || port.serialNumber === usb.serialNumber)
  );
}

export function describeUsb(usb: UsbMatch): string {
  return `${usb.vendorId}:${usb.productId}${usb.serialNumber !== undefined ? ` serial ${usb.serialNumber}` : ''}`;
}

/** Finds the path of the device with these USB ids among the attached ports (SerialPort.list()). */
export async function findPortByUsb(
  binding: SerialBinding,
  usb: UsbMatch,
  ctx: { label: string; configKey: string },
): Promise<string> {
  let ports: SerialPortInfo[];
  try {
    ports = await binding.list();
  } catch (err) {
    // "spawn udevadm ENOENT" alone does not tell the installer what to do.
    if (udevFailure(err) !== undefined) throw udevListError(err, ctx.configKey);
    throw err;
  }
  const found = ports.filter((p) => matchesUsb(p, usb));
  if (found.length === 0) {
    const attached =
      ports.map((p) => `${p.path}${p.vendorId ? ` ${p.vendorId}:${p.productId ?? '?'}` : ''}`).join(', ') || 'none';
    throw new AgentError(
      ErrorCodes.DEVICE_PORT_MISSING,
      `no ${ctx.label} with USB id ${describeUsb(usb)} is attached (attached ports: ${attached}): check the cable, or ${ctx.configKey}.usb`,
      { details: { usb } },
    );
  }
  if (found.length > 1 && usb.serialNumber === undefined) {
    throw new AgentError(
      ErrorCodes.DEVICE_ERROR,
      `${found.length} devices with USB id ${describeUsb(usb)} are attached (${found.map((p) => p.path).join(', ')}): set ${ctx.configKey}.usb.serialNumber to choose one`,
      { details: { usb } },
    );
  }
  return (found[0] as SerialPortInfo).path;
}
