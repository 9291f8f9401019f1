import { AgentError, type ErrorCode, ErrorCodes } from '../core/index.js';
import type { DeviceStatusReason } from '../events/index.js';

export interface PortContext {
  /** 'card reader' */
  label: string;
  path: string;
  /** 'devices.reader' */
  configKey: string;
}

/**
 * Turns a binding's open error into an AgentError whose message says what to do. The
 * texts matched are those of bindings-cpp on Linux ("Error: No such file or directory,
 * cannot open …", "Error Resource temporarily unavailable Cannot lock port") and of
 * MockBinding.
 */
export function portOpenError(err: unknown, ctx: PortContext): AgentError {
  const text = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (/no such file|ENOENT|does not exist|ENODEV|No such device/i.test(text) || code === 'ENOENT') {
    return new AgentError(
      ErrorCodes.DEVICE_PORT_MISSING,
      `the ${ctx.label} port ${ctx.path} does not exist: check that the device is plugged in and that ${ctx.configKey}.path is right ("terminal-agent devices list" shows the attached ports)`,
      { cause: err, details: { path: ctx.path } },
    );
  }
  if (/permission denied|EACCES|EPERM/i.test(text) || code === 'EACCES' || code === 'EPERM') {
    return new AgentError(
      ErrorCodes.DEVICE_PORT_PERMISSION,
      `no permission to open the ${ctx.label} port ${ctx.path}: add the agent's user to the dialout group ("sudo usermod -aG dialout $USER", then log in again) or install the udev rule that grants it`,
      { cause: err, details: { path: ctx.path } },
    );
  }
  if (/cannot lock|resource temporarily unavailable|EBUSY|EAGAIN|busy|locked/i.test(text) || code === 'EBUSY') {
    return new AgentError(
      ErrorCodes.DEVICE_PORT_BUSY,
      `the ${ctx.label} port ${ctx.path} is in use by another process: stop it (another terminal-agent, ModemManager, screen or minicom; "fuser ${ctx.path}" names it)`,
      { cause: err, details: { path: ctx.path } },
    );
  }
  return new AgentError(ErrorCodes.DEVICE_ERROR, `could not open the ${ctx.label} port ${ctx.path}: ${text}`, {
    cause: err,
    details: { path: ctx.path },
  });
}

const reasons: Partial<Record<ErrorCode, DeviceStatusReason>> = {
  DEVICE_PORT_MISSING: 'port_missing',
  DEVICE_PORT_PERMISSION: 'permission_denied',
  DEVICE_PORT_BUSY: 'port_busy',
  DEVICE_ERROR: 'open_failed',
};

export function reasonOf(err: AgentError): DeviceStatusReason {
  return reasons[err.code] ?? 'open_failed';
}
