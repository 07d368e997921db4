import type { ServiceContext } from '@ars/service';
import { createHttpClient, type HttpClient } from '@ars/http-client';
import type { ReadinessCheck } from '@ars/http-app';
import type { PeerConfig } from './config.js';

/** The services the gateway composes its answers from. */
export const PEERS = ['catalog', 'runs', 'sandboxes', 'automations-engine', 'pr-review', 'mcp-registry'] as const;
export type Peer = (typeof PEERS)[number];

const URL_VARIABLE: Record<Peer, keyof PeerConfig> = {
  catalog: 'CATALOG_URL',
  runs: 'RUNS_URL',
  sandboxes: 'SANDBOXES_URL',
  'automations-engine': 'AUTOMATIONS_ENGINE_URL',
  'pr-review': 'PR_REVIEW_URL',
  'mcp-registry': 'MCP_REGISTRY_URL',
};

/** One keep-alive client per peer, closed on shutdown. */
export function createPeerClients(ctx: ServiceContext<PeerConfig>): Record<Peer, HttpClient> {
  const clients = {} as Record<Peer, HttpClient>;
  for (const peer of PEERS) {
    clients[peer] = createHttpClient({
      baseUrl: ctx.config[URL_VARIABLE[peer]],
      caller: 'gateway',
      internalToken: ctx.config.INTERNAL_TOKEN,
      logger: ctx.logger,
      peer,
    });
    ctx.onShutdown(() => clients[peer].close(), `${peer} client`);
  }
  return clients;
}

/** The gateway is ready only when every service it composes from is ready. */
export function peerReadinessChecks(clients: Record<Peer, HttpClient>): Record<string, ReadinessCheck> {
  return Object.fromEntries(
    PEERS.map((peer): [string, ReadinessCheck] => [
      peer,
      async () => {
        await clients[peer].get('/readyz', { timeoutMs: 1_500 });
      },
    ]),
  );
}
