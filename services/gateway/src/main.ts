// The gateway: the only public ingress. Owns users, browser sessions, PATs and OAuth grants.
import { startGateway } from './gateway.js';

await startGateway();
