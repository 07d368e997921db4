// The baseline of the benchmark (authenticatedRepos.ts): a bare Koa handler answering
// GET /api/v1/svc/repos with JSON of the shape the gateway answers for a development account (two
// repositories, the contract's fields), so the ratio measures what the whole path adds: the
// gateway's PAT lookup, per-PAT limit in Redis and internal hop, and the catalog's read.
// With UPSTREAM_URL it is instead the bare proxy: a Koa handler that asks UPSTREAM_URL's /repos over
// the services' one HTTP client (@ars/http-client: undici, keep-alive) and answers its data, the
// least a gateway that forwards can do (issue 33 compares the gateway with it).
// PORT (default a free one); prints `listening <port>`; exits at the end of its stdin.
import Koa from 'koa';
import { createHttpClient } from '@ars/http-client';
import { createLogger } from '@ars/logger';

const repos = [
  { id: 'r-1', full_name: 'bench/web-app', installation_id: 1, default_branch: 'main', root_directory: null },
  { id: 'r-2', full_name: 'bench/api-server', installation_id: 1, default_branch: 'main', root_directory: null },
];
const REPOS_BODY = JSON.stringify({ ok: true, data: { repos } });

const upstream = process.env.UPSTREAM_URL;
const client = upstream
  ? createHttpClient({ baseUrl: upstream, caller: 'bench-proxy', logger: createLogger({ service: 'bench-proxy', level: 'warn' }), peer: 'bare' })
  : undefined;

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path.endsWith('/repos')) {
    ctx.type = 'application/json';
    ctx.body = client ? { ok: true, data: await client.get<unknown>('/api/v1/svc/repos') } : REPOS_BODY;
  } else {
    ctx.status = 404;
    ctx.body = { ok: false, error: { code: 'NOT_FOUND', message: 'No route' } };
  }
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
});
server.keepAliveTimeout = 5_000;
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
