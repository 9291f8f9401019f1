/** The event bus and its event types; the platform's time forms its events carry. */
export { EventBus } from './bus.js';
export type { AgentEvent, AgentEventMap, AgentEventType, DeviceName, DeviceStatusReason } from './types.js';
export { parseServerTime, serverTimeEnd, zonedToEpoch, zoneOffsetMs, type ServerTime } from './server-time.js';
