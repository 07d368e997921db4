import { randomBytes } from 'node:crypto';
import { AppError } from '@ars/errors';
import { ok, pathParam, type Router } from '@ars/http-app';
import { devExampleServers } from '../domain/devExamples.js';
import type { McpRegistryDeps } from './deps.js';

/**
 * `POST /internal/dev/users/:userId/mcp-servers/examples` → 201 `{servers: [{name}]}`: the two example
 * servers of a development account (`domain/devExamples.ts`), created or replaced. 404 `NOT_FOUND`
 * under `ARS_ENV=production`, as if the route did not exist.
 */
export function createDevExamples(router: Router, deps: McpRegistryDeps): void {
  router.post('/dev/users/:userId/mcp-servers/examples', async (ctx) => {
    if (deps.production) throw AppError.notFound(`No route for ${ctx.method} ${ctx.path}`);
    const userId = pathParam(ctx, 'userId');
    const examples = devExampleServers(randomBytes(8).toString('hex'));
    for (const example of examples) await deps.servers.put(userId, example.name, example);
    ok(ctx, { servers: examples.map(({ name }) => ({ name })) }, 201);
  });
}
