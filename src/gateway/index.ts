// `durable-agents/gateway`: the HTTP gateway (JSON API over runs, threads and approvals) to start or mount in your own server.
export { createGatewayHandler } from './gateway-app';
export type { GatewayHandler, GatewayOptions } from './gateway-app';
export { startGateway } from './gateway-server';
export type { GatewayServerOptions, RunningGateway } from './gateway-server';
export { hashGatewayKey, readGatewayAccess } from './gateway-access';
export type { GatewayAccess, GatewayKey, GatewayScope } from './gateway-access';
export type { GatewayJwtSettings, JwtKeySource } from './gateway-jwt-settings';
export type { RateLimit } from './gateway-rate-limit';
export type { RequestLogEntry, RequestLogger } from './gateway-request-log';
export { GatewayErrorCode } from './gateway-errors';
export type { ErrorBody } from './gateway-errors';
export type { FeedRegistry } from './streams/feed-registry';
export type { GatewayFeeds } from './streams/gateway-feeds';
export type { GatewayStreamLimits, StreamLimitStats } from './streams/stream-limits';
export type { FeedRequests } from './streams/run-feed';
