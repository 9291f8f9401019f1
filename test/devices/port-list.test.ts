import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listPorts } from '../../src/cli/commands/devices.js';
import { findPortByUsb } from '../../src/devices/port-finder.js';
import { withUdevFallback } from '../../src/devices/port-list.js';
import type { SerialBinding } from '../../src/devices/serial-port.js';
import { tempDir } from '../helpers/temp-dir.js';
import { devicesConfig } from './sim-rig.js';

/**
 * Ports listed without udev (docs/serial-protocol.md, "Decisions", port listing): the
 * binding's list() runs `udevadm`; where it is missing the agent reads sysfs, and when
 * that fails too it says what to configure instead of a bare "spawn udevadm ENOENT".
 */

/** A binding whose list() fails as bindings-cpp's does on a system without udev. */
function noUdevBinding(): SerialBinding {
  return {
    list: () =>
      Promise.reject(
        Object.assign(new Error('spawn udevadm ENOENT'), {
          code: 'ENOENT',
          errno: -2,
          syscall: 'spawn udevadm',
          path: 'udevadm',
        }),
      ),
    open: () => Promise.reject(new Error('not used')),
  };
}

let tmp: { dir: string; cleanup: () => void } | undefined;
afterEach(() => {
  tmp?.cleanup();
  tmp = undefined;
});

/** A fake root with a USB card reader (ttyACM0), an on-board UART (ttyS0) and a virtual console (tty1). */
function fakeSysfs(): string {
  tmp = tempDir('sysfs-');
  const root = tmp.dir;
  const usbDev = join(root, 'sys/devices/pci0000:00/usb1/1-2');
  const iface = join(usbDev, '1-2:1.0');
  mkdirSync(join(iface, 'tty/ttyACM0'), { recursive: true });
  writeFileSync(join(usbDev, 'idVendor'), '1d50\n');
  writeFileSync(join(usbDev, 'idProduct'), '6101\n');
  writeFileSync(join(usbDev, 'serial'), 'R-0042\n');
  writeFileSync(join(usbDev, 'manufacturer'), 'Acme Payments\n');
  symlinkSync(iface, join(iface, 'tty/ttyACM0/device'));
  const uart = join(root, 'sys/devices/platform/serial8250');
  mkdirSync(join(uart, 'tty/ttyS0'), { recursive: true });
  symlinkSync(uart, join(uart, 'tty/ttyS0/device'));
  mkdirSync(join(root, 'sys/devices/virtual/tty/tty1'), { recursive: true });
  mkdirSync(join(root, 'sys/class/tty'), { recursive: true });
  symlinkSync(join(iface, 'tty/ttyACM0'), join(root, 'sys/class/tty/ttyACM0'));
  symlinkSync(join(uart, 'tty/ttyS0'), join(root, 'sys/class/tty/ttyS0'));
  symlinkSync(join(root, 'sys/devices/virtual/tty/tty1'), join(root, 'sys/class/tty/tty1'));
  mkdirSync(join(root, 'dev/serial/by-id'), { recursive: true });
  symlinkSync('../../ttyACM0', join(root, 'dev/serial/by-id/usb-Acme_Payments_Reader_R-0042-if00'));
  return root;
}

describe('serial ports without udevadm', () => {
  it('are listed from sysfs, with the USB ids of USB ports, so devices list and lookup by USB id keep working', async () => {
    const binding = withUdevFallback(noUdevBinding(), { root: fakeSysfs() });
    expect(await binding.list()).toEqual([
      {
        path: '/dev/ttyACM0',
        manufacturer: 'Acme Payments',
        serialNumber: 'R-0042',
        pnpId: 'usb-Acme_Payments_Reader_R-0042-if00',
        locationId: undefined,
        vendorId: '1d50',
        productId: '6101',
      },
      {
        path: '/dev/ttyS0',
        manufacturer: undefined,
        serialNumber: undefined,
        pnpId: undefined,
        locationId: undefined,
        vendorId: undefined,
        productId: undefined,
      },
    ]);
    expect(
      await findPortByUsb(
        binding,
        { vendorId: '1D50', productId: '6101' },
        { label: 'card reader', configKey: 'devices.reader' },
      ),
    ).toBe('/dev/ttyACM0');
    const config = devicesConfig();
    const listing = await listPorts(binding, {
      ...config,
      reader: { ...config.reader, usb: { vendorId: '1d50', productId: '6101' } },
    });
    expect(listing.map((p) => [p.path, p.configuredAs])).toEqual([
      ['/dev/ttyACM0', ['reader']],
      ['/dev/ttyS0', []],
    ]);
  });

  it('say what to configure when sysfs cannot be read either', async () => {
    tmp = tempDir('nosys-');
    const binding = withUdevFallback(noUdevBinding(), { root: tmp.dir });
    const err = await binding.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({
      code: 'DEVICE_ERROR',
      message: expect.stringMatching(
        /udevadm is not installed \(spawn udevadm ENOENT\); install udev .*set devices\.<device>\.path to the port .* instead of devices\.<device>\.usb/,
      ),
    });
    const config = devicesConfig();
    await expect(listPorts(binding, config)).rejects.toMatchObject({ message: expect.stringMatching(/install udev/) });
  });

  it('a lookup by USB id on a binding that cannot run udevadm names the device key to set instead', async () => {
    await expect(
      findPortByUsb(
        noUdevBinding(),
        { vendorId: '1d50', productId: '6101' },
        { label: 'card reader', configKey: 'devices.reader' },
      ),
    ).rejects.toMatchObject({
      code: 'DEVICE_ERROR',
      message: expect.stringMatching(
        /install udev .*or set devices\.reader\.path to the port .* instead of devices\.reader\.usb/,
      ),
    });
  });

  it('other list failures pass through unchanged', async () => {
    const failing: SerialBinding = {
      list: () => Promise.reject(new Error('boom')),
      open: () => Promise.reject(new Error('not used')),
    };
    await expect(withUdevFallback(failing).list()).rejects.toThrow('boom');
  });
});
