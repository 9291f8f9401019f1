/** The typed event bus and the provider event relay (docs/architecture.md, "Event relay"). */
export { EventBus } from './bus.js';
export { createEventRelay, type EventRelay, type EventRelayOptions, type RelayTimers } from './relay.js';
export { defaultRelayPolicy, nextPollDelay, parseExpireTime, type RelayPolicy, type PollState } from './relay-policy.js';
export type { AgentEvent, AgentEventMap, AgentEventType, DeviceName, DeviceStatusReason } from './types.js';
