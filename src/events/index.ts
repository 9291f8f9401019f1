/** The event bus, its event types and the provider event relay (docs/payments.md, "Event relay"). */
export { EventBus } from './bus.js';
export type { AgentEvent, AgentEventMap, AgentEventType, DeviceName, DeviceStatusReason } from './types.js';
export { createEventRelay, type EventRelay, type EventRelayOptions } from './relay.js';
export {
  defaultRelayPolicy,
  nextPollDelay,
  parseExpireTime,
  type RelayPolicy,
  type PollState,
} from './relay-policy.js';
export type { AppliedStatus, PendingTracking, RelayedTransaction, RelayStore } from './relay-store.js';
export { parseServerTime, serverTimeEnd, zonedToEpoch, zoneOffsetMs, type ServerTime } from './server-time.js';
