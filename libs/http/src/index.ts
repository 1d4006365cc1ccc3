export {
  type AppOptions,
  type AppVariables,
  createApp,
  DEFAULT_MAX_BODY_BYTES,
  maxBodyBytesSetting,
  type ReadinessCheck,
  type ServiceApp,
} from './app';
export { limitBody, requestBytes } from './body';
export { domainProblem, type ErrorTable } from './domain-problem';
export { presetResponseHeader, requestCookie, requestHeader } from './headers';
export {
  callForAnswer,
  callForStream,
  type StreamedAnswer,
  callWithDeadline,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  httpUpstream,
  type Upstream,
  type UpstreamAnswer,
  type UpstreamCall,
  UPSTREAM_IDLE_SOCKET_MS,
  UpstreamTimeout,
} from './upstream';
export {
  createShutdown,
  type FetchApp,
  isPortInUse,
  listen,
  type RunningServer,
  SERVER_KEEP_ALIVE_MS,
  SHUTDOWN_ORDER,
  type ShutdownSteps,
  shutdownOnSignals,
} from './lifecycle';
export {
  MERCHANT_CONTEXT_HEADER,
  MERCHANT_SIGNATURE_HEADER,
  requireMerchant,
  signMerchantContext,
  verifyMerchantContext,
} from './merchant-context';
export {
  OPERATOR_SIGNATURE_HEADER,
  requireOperator,
  signOperatorContext,
  verifyOperatorContext,
} from './operator-context';
export {
  type FieldError,
  HttpProblem,
  type ProblemBody,
  problemBody,
  problemResponse,
  problems,
} from './problem';
export {
  answerMethodNotAllowed,
  honoPath,
  jsonAnswer,
  mountOperation,
  type RouteAnswer,
  type RouteInput,
  type RouteOptions,
  route,
} from './route';
export { describeErrors, fieldErrors, issueMessage, jsonBody, readJson, validate } from './validation';
