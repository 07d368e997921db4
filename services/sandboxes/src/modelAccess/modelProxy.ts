// The host side of a harness's one way to a model: an HTTP server (on a Unix socket bound into the
// sandbox, or on 127.0.0.1 when sandboxes are not isolated) that passes the two model APIs the CLIs
// speak through to the configured provider, and nothing else. A request is streamed both ways as it
// comes (the answers are Server-Sent Events), and a client that goes away (a cancelled run: the
// sandbox and its forwarder are gone) ends the upstream request at once.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmod, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Agent, request as undiciRequest } from 'undici';

/** Where each API's requests go: the providers' base URLs as their SDKs spell them. */
export interface ModelUpstreams {
  /** The OpenAI Responses API base, `/v1` included (`OPENAI_BASE_URL`, e.g. `https://api.openai.com/v1`). */
  responses: string;
  /** The Anthropic Messages API base, without `/v1` (`ANTHROPIC_BASE_URL`, e.g. `https://api.anthropic.com`). */
  messages: string;
}

export type ModelProxyListen = { socketPath: string } | { loopbackPort: 0 };

export interface ModelProxy {
  /** `http://127.0.0.1:<port>` for a loopback listener; the socket's path otherwise. */
  address: string;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the ones the proxy sets itself. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length']);

/** A model's answer may take long to start (reasoning) and a stream may pause long between events. */
const UPSTREAM_TIMEOUT_MS = 10 * 60_000;

type ModelApi = 'responses' | 'messages';

/** The upstream URL of a request path, or null: only the two model APIs pass. */
export function upstreamUrl(upstreams: ModelUpstreams, method: string | undefined, path: string): { api: ModelApi; url: string } | null {
  if (method !== 'POST') return null;
  const [pathname = '', query] = splitQuery(path);
  const suffix = query === undefined ? '' : `?${query}`;
  if (pathname === '/v1/responses') return { api: 'responses', url: `${trimSlash(upstreams.responses)}/responses${suffix}` };
  if (pathname === '/v1/messages') return { api: 'messages', url: `${trimSlash(upstreams.messages)}/v1/messages${suffix}` };
  return null;
}

/** Starts a proxy; its connections share one connection pool to the providers. */
export async function startModelProxy(listen: ModelProxyListen, upstreams: ModelUpstreams): Promise<ModelProxy> {
  const dispatcher = new Agent({ headersTimeout: UPSTREAM_TIMEOUT_MS, bodyTimeout: UPSTREAM_TIMEOUT_MS });
  const server = createServer((req, res) => {
    forward(req, res, upstreams, dispatcher).catch(() => res.destroy());
  });
  const address = await listenOn(server, listen);
  return {
    address,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.close().catch(() => undefined);
      if ('socketPath' in listen) await rm(listen.socketPath, { force: true });
    },
  };
}

async function forward(req: IncomingMessage, res: ServerResponse, upstreams: ModelUpstreams, dispatcher: Agent): Promise<void> {
  const target = upstreamUrl(upstreams, req.method, req.url ?? '/');
  if (!target) {
    req.resume();
    return answerError(res, 404, 'messages', `${req.method ?? '?'} ${(req.url ?? '/').split('?')[0]} is not a model API this sandbox may call`);
  }
  // The client went away (the run ended, or its CLI gave up): the provider's request ends too.
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  let upstream: Awaited<ReturnType<typeof undiciRequest>>;
  try {
    upstream = await undiciRequest(target.url, {
      method: 'POST',
      headers: withoutHopByHop(req.headers),
      body: req,
      dispatcher,
      signal: abort.signal,
    });
  } catch (error) {
    if (abort.signal.aborted) return;
    // Named by its origin (the run's reader sees it in run.error): the configured provider, not the sandbox's forwarder.
    const provider = new URL(target.url).origin;
    return answerError(
      res,
      502,
      target.api,
      `the model provider at ${provider} could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  res.writeHead(upstream.statusCode, withoutHopByHop(upstream.headers));
  // Each event is sent on as it arrives: the CLI streams the answer to the run's watchers.
  res.flushHeaders();
  await pipeline(upstream.body, res).catch(() => {
    upstream.body.destroy();
    res.destroy();
  });
}

/** Headers passed on, either way: all but the hop-by-hop ones and those the proxy sets itself. */
function withoutHopByHop(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** An error in the shape of the API the client called, so its CLI reports the message. */
function answerError(res: ServerResponse, status: number, api: ModelApi, message: string): void {
  const body =
    api === 'responses'
      ? { error: { message, type: status === 404 ? 'invalid_request_error' : 'server_error', code: null, param: null } }
      : { type: 'error', error: { type: status === 404 ? 'not_found_error' : 'api_error', message } };
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function listenOn(server: Server, listen: ModelProxyListen): Promise<string> {
  if ('socketPath' in listen) {
    await rm(listen.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.socketPath, () => resolve());
    });
    // Only the sandbox's own processes (the host's uid inside its user namespace) connect.
    await chmod(listen.socketPath, 0o600);
    return listen.socketPath;
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function splitQuery(path: string): [string, string | undefined] {
  const index = path.indexOf('?');
  return index < 0 ? [path, undefined] : [path.slice(0, index), path.slice(index + 1)];
}

function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}
