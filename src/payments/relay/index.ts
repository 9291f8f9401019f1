/** The status follower (the event relay): docs/payments.md, "Event relay". */
export { createEventRelay, type EventRelay, type EventRelayOptions } from './relay.js';
export {
  defaultRelayPolicy,
  nextPollDelay,
  parseExpireTime,
  type RelayPolicy,
  type PollState,
} from './relay-policy.js';
export type { AppliedStatus, PendingTracking, RelayedTransaction, RelayStore } from './relay-store.js';
