// The web app's tool server settings (`/api/settings/mcp-servers`): browser session only (a PAT is
// 403, as on the PAT routes), Origin checked on writes, forwarded to mcp-registry's settings routes
// as the session's user. mcp-registry validates and answers; nothing of a body or an answer is
// logged here (configs are secret: the access log has method, path, status and timing only).
import { AppError } from '@ars/errors';
import { ok, type RouterContext, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from '../deps.js';
import { requestBody } from './requestBody.js';
import { sessionPrincipalOf } from '../auth/sessionAuth.js';

function settingsPath(userId: string, name?: string): string {
  const base = `/internal/users/${encodeURIComponent(userId)}/settings/mcp-servers`;
  if (name === undefined) return base;
  // A name is one path segment: `.` and `..` would name another route.
  if (name === '.' || name === '..') throw AppError.badRequest('name must not be `.` or `..`');
  return `${base}/${encodeURIComponent(name)}`;
}

const nameOf = (ctx: RouterContext): string => String(ctx.params.name);

/** GET /api/settings/mcp-servers → `{servers: [{name, enabled, config, createdAt, updatedAt}]}` by name, the session user's only. */
export function listMcpServerSettings(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    ok(ctx, await gateway.peers['mcp-registry'].get<unknown>(settingsPath(userId)));
  };
}

/** PUT /api/settings/mcp-servers/:name `{enabled?, config}` → 201 `{server, created: true}` created, 200 `{server, created: false}` replaced. */
export function putMcpServer(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    const answer = await gateway.peers['mcp-registry'].put<{ server: unknown; created: boolean }>(settingsPath(userId, nameOf(ctx)), requestBody(ctx) ?? {});
    ok(ctx, answer, answer.created ? 201 : 200);
  };
}

/** DELETE /api/settings/mcp-servers/:name → `{server: {name}, deleted: true}`; 404 when the user has none of that name. */
export function deleteMcpServer(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    ok(ctx, await gateway.peers['mcp-registry'].delete<unknown>(settingsPath(userId, nameOf(ctx))));
  };
}
