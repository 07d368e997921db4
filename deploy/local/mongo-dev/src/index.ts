// The MongoDB-wire development server, startable in-process (tests) or through `main.ts` (CLI).
export { startMongoDevServer } from './server.js';
export type { MongoDevServer, MongoDevServerOptions } from './server.js';
