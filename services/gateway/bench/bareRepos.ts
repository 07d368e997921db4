// The baseline of the benchmark: a bare Koa handler answering GET …/repos with the same JSON the
// gateway answers. It also stands in for the catalog behind the gateway (the same handler), so the
// ratio measures what the gateway itself adds: PAT lookup, per-PAT limit in Redis, one internal hop.
import Koa from 'koa';

const repos = [
  { id: 'r-1', full_name: 'bench/web-app', installation_id: 1, default_branch: 'main', root_directory: null },
  { id: 'r-2', full_name: 'bench/api-server', installation_id: 1, default_branch: 'main', root_directory: null },
];
const REPOS_BODY = JSON.stringify({ ok: true, data: { repos } });

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path.endsWith('/repos')) {
    ctx.type = 'application/json';
    ctx.body = REPOS_BODY;
  } else if (ctx.path === '/readyz' || ctx.path === '/healthz') {
    ctx.body = { ok: true, data: { status: 'ready' } };
  } else if (ctx.method === 'POST' && ctx.path === '/internal/dev/installations') {
    ctx.status = 201;
    ctx.body = { ok: true, data: { installation: { id: 1, account: 'bench', provider: 'local' }, repos } };
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
