// The A2A SDK's own client for an agent card's URL, sending a bearer credential with every request (the card's too).
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';

/** The SDK's JSON-RPC client for the agent at `agentUrl` (`<gateway>/a2a/<agent>/`), from its card, sending `credential` as a bearer token. */
export async function a2aSdkClient(agentUrl: string, credential: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${credential}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(agentUrl);
}
