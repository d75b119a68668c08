// The gateway's route table: every route it serves, in one list the app and the OpenAPI document share.
import { aguiRoutes } from './agui-routes';
import { approvalRoutes } from './approval-routes';
import { chatRoutes } from './chat-routes';
import { gatewayOpenApi } from './gateway-openapi';
import type { GatewayRoute } from './gateway-route';
import { runRoutes } from './run-routes';
import { threadRoutes } from './thread-routes';

/** This package's version, which the OpenAPI document states (src/gateway and dist/gateway both sit two folders below package.json). */
const PACKAGE_VERSION = (require('../../package.json') as { version: string }).version;

const openApiRoute: GatewayRoute = {
  method: 'GET',
  path: '/openapi.json',
  name: 'openApi',
  summary: "This API's OpenAPI 3.1 document (no key needed)",
  scope: null,
  responses: { 200: 'The OpenAPI document' },
  handle: async () => ({ status: 200, body: gatewayOpenApi(GATEWAY_ROUTES, PACKAGE_VERSION) }),
};

/** Every route of the gateway. */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = [...runRoutes, ...threadRoutes, ...chatRoutes, ...aguiRoutes, ...approvalRoutes, openApiRoute];
