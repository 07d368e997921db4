// The gateway: the only public ingress. Owns users, browser sessions, PATs and OAuth grants.
import { runService } from '@ars/service';
import { createPeerClients, peerConfigSchema, peerReadinessChecks } from './peers.js';

await runService({
  name: 'gateway',
  port: 8080,
  requireMongo: true,
  requireBus: true,
  configSchema: peerConfigSchema,
  readiness: (ctx) => peerReadinessChecks(createPeerClients(ctx)),
});
