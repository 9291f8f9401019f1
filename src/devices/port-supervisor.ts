import type { Duplex } from 'node:stream';
import {
  backoffDelay,
  AgentError,
  isAgentError,
  ErrorCodes,
  systemClock,
  type BackoffOptions,
  type Logger,
  type Clock,
  type TimerHandle,
} from '../core/index.js';
import type { SerialPortConfig } from '../config/index.js';
import type { EventBus, DeviceName, DeviceStatusReason } from '../events/index.js';
import type { DeviceInfo } from './api.js';
import { findPortByUsb } from './port-finder.js';
import { portOpenError, reasonOf } from './port-errors.js';
import { closeSerialPort, openSerialPort, type OpenPort, type SerialBinding } from './serial-port.js';

/** One open connection to a device, made by a SessionFactory for every (re)open. */
export interface PortSession {
  close(reason: string): void;
  /** The link gave up on a message: the device stopped answering. */
  onFailure?(listener: (err: AgentError) => void): () => void;
}

export interface SessionFactory<S extends PortSession> {
  create(stream: Duplex): S;
  /** The `hello` exchange; rejects when the device does not answer like the expected one. */
  handshake(session: S): Promise<DeviceInfo | undefined>;
}

export type SupervisorState = 'stopped' | 'connecting' | 'connected' | 'disconnected' | 'reconnecting' | 'disabled';

export interface DeviceStatusEntry {
  device: DeviceName;
  enabled: boolean;
  state: SupervisorState;
  /** Configured path, or the one found by USB ids. */
  path: string | undefined;
  reason?: DeviceStatusReason;
  /** What to do about the last failure. */
  message?: string;
  errorCode?: string;
  info?: DeviceInfo;
  /** Failed open/handshake attempts since the last connection. */
  attempts: number;
  since: string;
}

export type ConnectAttempt =
  { connected: true; info: DeviceInfo | undefined } | { connected: false; error: AgentError };

export interface PortSupervisorOptions<S extends PortSession> {
  device: DeviceName;
  /** 'card reader' */
  label: string;
  config: SerialPortConfig;
  binding: SerialBinding;
  bus: EventBus;
  log: Logger;
  sessions: SessionFactory<S>;
  clock?: Clock;
  backoff?: BackoffOptions;
  /** Keep trying after a failure (default true; the CLI opens once). */
  reconnect?: boolean;
}

/** Serial ports come back fast after a replug; a long wait would only delay the sale. */
export const defaultDeviceBackoff: BackoffOptions = { baseMs: 250, capMs: 10_000 };

interface Current<S> {
  port: OpenPort;
  session: S;
  detach: () => void;
}

/**
 * Owns one device's port: opens it by path (or by USB ids), runs the handshake, watches
 * for unplug (`close` with `disconnected`) and link failure, reopens with jittered
 * backoff and reports every change as `device.status` with a typed reason.
 */
export class PortSupervisor<S extends PortSession> {
  private running = false;
  private current: Current<S> | undefined;
  private retryTimer: TimerHandle | undefined;
  private attempts = 0;
  private everConnected = false;
  private firstAttempt: Promise<ConnectAttempt> | undefined;
  private entry: DeviceStatusEntry;
  private lastPublished = '';
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly listeners = new Set<(session: S | undefined) => void>();
  /** Bumped on stop and on every new connect, so a late callback of an old attempt is ignored. */
  private generation = 0;

  constructor(private readonly opts: PortSupervisorOptions<S>) {
    this.clock = opts.clock ?? systemClock();
    this.log = opts.log.child({ component: 'port-supervisor', device: opts.device });
    this.entry = {
      device: opts.device,
      enabled: opts.config.enabled,
      state: opts.config.enabled ? 'stopped' : 'disabled',
      path: opts.config.usb ? undefined : opts.config.path,
      attempts: 0,
      since: new Date(this.clock.wall()).toISOString(),
    };
  }

  /** Starts connecting; resolves after the first attempt, connected or not (never rejects). */
  start(): Promise<ConnectAttempt> {
    if (!this.opts.config.enabled) {
      return Promise.resolve({
        connected: false,
        error: new AgentError(ErrorCodes.DEVICE_DISCONNECTED, `the ${this.opts.label} is disabled in configuration`),
      });
    }
    if (this.running && this.firstAttempt) return this.firstAttempt;
    this.running = true;
    this.firstAttempt = this.connect();
    return this.firstAttempt;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.generation++;
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const cur = this.current;
    this.current = undefined;
    if (cur) {
      cur.detach();
      cur.session.close('stopped');
      this.notify(undefined);
      await closeSerialPort(cur.port);
    }
    this.setState('stopped', 'stopped');
  }

  /** The connected session, or undefined while the device is away. */
  get session(): S | undefined {
    return this.current?.session;
  }

  get connected(): boolean {
    return this.current !== undefined;
  }

  get info(): DeviceInfo | undefined {
    return this.entry.info;
  }

  status(): DeviceStatusEntry {
    return { ...this.entry };
  }

  onSessionChange(listener: (session: S | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async connect(): Promise<ConnectAttempt> {
    const generation = ++this.generation;
    if (!this.everConnected && this.attempts === 0) this.entry.state = 'connecting';
    const label = this.opts.label;
    const configKey = `devices.${this.opts.device}`;
    let port: OpenPort | undefined;
    let session: S | undefined;
    try {
      const path = this.opts.config.usb
        ? await findPortByUsb(this.opts.binding, this.opts.config.usb, { label, configKey })
        : this.opts.config.path;
      this.entry.path = path;
      try {
        port = await openSerialPort({ path, baudRate: this.opts.config.baudRate, binding: this.opts.binding });
      } catch (err) {
        throw portOpenError(err, { label, path, configKey });
      }
      const opened = port;
      // An error event without a listener would crash the process.
      opened.on('error', (err: Error) => this.log.debug({ err: err.message }, 'port error'));
      session = this.opts.sessions.create(opened);
      let info: DeviceInfo | undefined;
      try {
        info = await this.opts.sessions.handshake(session);
      } catch (err) {
        throw new AgentError(
          ErrorCodes.DEVICE_TIMEOUT,
          `the ${label} on ${path} did not complete the hello handshake: ${err instanceof Error ? err.message : String(err)}; check that the right device is on this port and powered`,
          {
            cause: err,
            details: { path, reason: 'handshake_failed' },
          },
        );
      }
      if (!this.running || generation !== this.generation || !opened.isOpen) {
        session.close('stopped');
        await closeSerialPort(opened);
        return { connected: false, error: new AgentError(ErrorCodes.DEVICE_DISCONNECTED, `the ${label} was stopped`) };
      }
      this.attach(opened, session, info);
      return { connected: true, info };
    } catch (err) {
      session?.close('open failed');
      if (port) await closeSerialPort(port);
      const error = isAgentError(err)
        ? err
        : portOpenError(err, { label, path: this.entry.path ?? this.opts.config.path, configKey });
      if (generation === this.generation && this.running) this.failed(error);
      return { connected: false, error };
    }
  }

  private attach(port: OpenPort, session: S, info: DeviceInfo | undefined): void {
    const onClose = (err: (Error & { disconnected?: boolean }) | null): void => {
      if (this.current?.port !== port) return;
      this.lost(
        err?.disconnected === true ? 'unplugged' : 'port_closed',
        err?.disconnected === true
          ? `the ${this.opts.label} was unplugged or lost power`
          : `the ${this.opts.label} port closed`,
      );
    };
    port.on('close', onClose);
    const offFailure = session.onFailure?.((err) => {
      if (this.current?.port !== port) return;
      this.log.warn({ code: err.code }, 'device stopped acknowledging, reopening the port');
      this.lost('no_ack', `the ${this.opts.label} stopped acknowledging messages`, closeSerialPort(port));
    });
    this.current = {
      port,
      session,
      detach: () => {
        port.off('close', onClose);
        offFailure?.();
      },
    };
    const reconnected = this.everConnected;
    this.everConnected = true;
    this.attempts = 0;
    this.entry.info = info;
    this.entry.attempts = 0;
    delete this.entry.errorCode;
    delete this.entry.message;
    this.setState('connected', reconnected ? 'reconnected' : 'opened');
    this.log.info(
      { path: this.entry.path, model: info?.model, firmware: info?.firmware },
      `${this.opts.label} connected`,
    );
    this.notify(session);
  }

  /** The connected device went away: drop the session (pending requests fail) and reconnect. */
  private lost(reason: DeviceStatusReason, message: string, closing: Promise<void> = Promise.resolve()): void {
    const cur = this.current;
    if (!cur) return;
    this.current = undefined;
    cur.detach();
    cur.session.close(message);
    this.notify(undefined);
    this.entry.message = message;
    this.log.warn({ reason }, message);
    this.setState('disconnected', reason);
    void closing.then(() => {
      if (this.running) this.schedule();
    });
  }

  private failed(error: AgentError): void {
    const reason = error.details?.reason === 'handshake_failed' ? 'handshake_failed' : reasonOf(error);
    this.attempts++;
    this.entry.attempts = this.attempts;
    this.entry.message = error.message;
    this.entry.errorCode = error.code;
    // Log the remedy once per distinct failure, not on every retry.
    if (this.entry.reason !== reason || this.entry.state !== 'reconnecting')
      this.log.warn({ code: error.code, reason }, error.message);
    if (this.opts.reconnect === false) {
      this.setState('disconnected', reason);
      return;
    }
    this.setState('reconnecting', reason);
    this.schedule();
  }

  private schedule(): void {
    if (this.retryTimer !== undefined || !this.running) return;
    const delay = backoffDelay(this.attempts, this.opts.backoff ?? defaultDeviceBackoff);
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.running && !this.current) void this.connect();
    }, delay);
  }

  private setState(state: SupervisorState, reason: DeviceStatusReason): void {
    this.entry.state = state;
    this.entry.reason = reason;
    this.entry.since = new Date(this.clock.wall()).toISOString();
    const busState = state === 'connected' ? 'connected' : state === 'reconnecting' ? 'reconnecting' : 'disconnected';
    const key = `${busState}/${reason}`;
    if (key === this.lastPublished) return;
    this.lastPublished = key;
    const info = state === 'connected' ? this.entry.info : undefined;
    this.opts.bus.publish('device.status', {
      device: this.opts.device,
      state: busState,
      reason,
      ...(state !== 'connected' && this.entry.message !== undefined ? { message: this.entry.message } : {}),
      ...(info?.model !== undefined ? { model: info.model } : {}),
      ...(info?.firmware !== undefined ? { firmware: info.firmware } : {}),
    });
  }

  private notify(session: S | undefined): void {
    for (const l of [...this.listeners]) {
      try {
        l(session);
      } catch (err) {
        this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'session listener failed');
      }
    }
  }
}
