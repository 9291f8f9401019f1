export {
  PlatformClient,
  type PlatformClientOptions,
  type BearerProvider,
  type CallOptions,
  type GetRetryOptions,
} from './client.js';
export {
  PlatformWatch,
  type PlatformReach,
  type PlatformReachView,
  type ReachObserver,
  type AvailabilityProbe as PlatformAvailabilityProbe,
  type PlatformWatchOptions,
} from './availability-watch.js';
export {
  PlatformError,
  isPlatformError,
  isNotFound,
  type PlatformErrorCategory,
  type PlatformErrorInit,
} from './errors.js';
export { HostDispatchers, dispatcherFor, type DispatcherFactory, type DispatcherSource } from './dispatchers.js';
export {
  httpRequest,
  parseErrorBody,
  statusError,
  transportError,
  jsonBody,
  type HttpRequest,
  type HttpResponse,
  type HttpMethod,
} from './http.js';
export { checkRequest, readResponse, describeIssues } from './validate.js';
export * from './schemas/requests.js';
export * from './schemas/responses.js';
export {
  amountRequest,
  amountResponse,
  currencyCode,
  minorUnits,
  clientDateTime,
  type AmountRequest,
  type AmountResponse,
} from './schemas/common.js';
