import type { Config } from '../../config/index.js';
import type { EventBus, DeviceName } from '../../events/index.js';
import type { DeviceStatusView } from '../shared/index.js';

const DEVICES: DeviceName[] = ['reader', 'display', 'scanner'];

/** Device states as last reported on the bus, for when no device status source is given. */
export function trackDevicesFromBus(
  bus: EventBus,
  config: Config,
): { devices: () => DeviceStatusView[]; stop: () => void } {
  const state = new Map<DeviceName, DeviceStatusView>();
  for (const device of DEVICES) {
    state.set(device, { device, state: config.devices[device].enabled ? 'unknown' : 'disabled' });
  }
  const stop = bus.on('device.status', (e) => {
    const { device, state: s, reason, model, firmware } = e.data;
    state.set(device, {
      device,
      state: s,
      ...(reason !== undefined ? { reason } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(firmware !== undefined ? { firmware } : {}),
    });
  });
  return { devices: () => DEVICES.map((d) => state.get(d) as DeviceStatusView), stop };
}
