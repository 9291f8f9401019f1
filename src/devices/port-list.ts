import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AgentError, ErrorCodes } from '../core/index.js';
import type { SerialBinding, SerialPortInfo } from './port-types.js';

/**
 * Listing serial ports without udev (docs/serial-protocol.md, "Decisions", port listing).
 * On Linux the serialport binding lists ports by running `udevadm info -e`; on a system
 * without udev that fails with a bare "spawn udevadm ENOENT". The agent then reads the
 * same facts from sysfs itself: every /sys/class/tty port with a device behind it, its
 * USB ids from the USB device above it, and its /dev/serial/by-id name.
 */

/** Port names the binding lists too (its linux-list filter). */
const SERIAL_NAME = /(tty(S|WCH|ACM|USB|AMA|MFD|O|XRUSB)|rfcomm)/;

/** How `udevadm` failed, when that is why the ports could not be listed. */
export function udevFailure(err: unknown): 'missing' | 'failed' | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT' && (e.path === 'udevadm' || /udevadm/.test(e.message) || e.syscall === 'spawn udevadm'))
    return 'missing';
  if (/udevadm exited with error code/.test(e.message)) return 'failed';
  return undefined;
}

/**
 * The error for ports that cannot be listed because udev is missing or failing, with what
 * to configure instead. `configKey` names the device when one was being looked up.
 */
export function udevListError(err: unknown, configKey = 'devices.<device>'): AgentError {
  const what = udevFailure(err) === 'failed' ? 'udevadm failed' : 'udevadm is not installed';
  return new AgentError(
    ErrorCodes.DEVICE_ERROR,
    `the serial ports cannot be listed with their USB ids: ${what} (${err instanceof Error ? err.message : String(err)}); install udev (the udev package), or set ${configKey}.path to the port (e.g. /dev/ttyACM0 or its /dev/serial/by-id/ name) instead of ${configKey}.usb`,
    { cause: err, details: { reason: 'udev_unavailable' } },
  );
}

async function readAttr(dir: string, name: string): Promise<string | undefined> {
  try {
    const v = (await readFile(join(dir, name), 'utf8')).trim();
    return v === '' ? undefined : v;
  } catch {
    return undefined;
  }
}

/** The USB device (the directory with idVendor) above a tty's device, up to a few levels. */
async function usbDeviceDir(deviceDir: string, sysRoot: string): Promise<string | undefined> {
  let dir = deviceDir;
  for (let i = 0; i < 5 && dir.startsWith(sysRoot) && dir !== sysRoot; i++) {
    if ((await readAttr(dir, 'idVendor')) !== undefined) return dir;
    dir = dirname(dir);
  }
  return undefined;
}

/** /dev/serial/by-id names by the tty they point at. */
async function byIdNames(root: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const dir = join(root, 'dev/serial/by-id');
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return names;
  }
  for (const e of entries) {
    try {
      names.set(basename(await readlink(join(dir, e))), e);
    } catch {
      // Not a link: ignore.
    }
  }
  return names;
}

/**
 * The serial ports as sysfs describes them, in the binding's format. `root` is the
 * filesystem root ('/'; tests pass a fake tree). Rejects when /sys/class/tty cannot be read.
 */
export async function listPortsFromSysfs(root = '/'): Promise<SerialPortInfo[]> {
  const sysRoot = join(root, 'sys');
  const classDir = join(sysRoot, 'class/tty');
  const names = (await readdir(classDir)).filter((n) => SERIAL_NAME.test(n)).sort();
  const byId = await byIdNames(root);
  const ports: SerialPortInfo[] = [];
  for (const name of names) {
    let deviceDir: string;
    try {
      // Virtual terminals have no device behind them.
      deviceDir = await realpath(join(classDir, name, 'device'));
    } catch {
      continue;
    }
    const usb = await usbDeviceDir(deviceDir, sysRoot);
    ports.push({
      path: `/dev/${name}`,
      manufacturer: usb ? await readAttr(usb, 'manufacturer') : undefined,
      serialNumber: usb ? await readAttr(usb, 'serial') : undefined,
      pnpId: byId.get(name),
      locationId: undefined,
      vendorId: usb ? await readAttr(usb, 'idVendor') : undefined,
      productId: usb ? await readAttr(usb, 'idProduct') : undefined,
    });
  }
  return ports;
}

/**
 * A binding whose list() falls back to sysfs when udevadm is missing or fails, and says
 * what to configure when that fails too (src/devices/serial-port.ts wraps the system
 * binding in it).
 */
export function withUdevFallback(binding: SerialBinding, opts: { root?: string } = {}): SerialBinding {
  return {
    open: (options) => binding.open(options),
    list: async () => {
      try {
        return await binding.list();
      } catch (err) {
        if (udevFailure(err) === undefined) throw err;
        try {
          return await listPortsFromSysfs(opts.root);
        } catch {
          throw udevListError(err);
        }
      }
    },
  };
}
