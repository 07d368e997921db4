// The model gateway: a harness CLI's one way to a model. Each run gets a door of its own (an HTTP
// server on a Unix socket bound into its sandbox, or on 127.0.0.1 when sandboxes are not isolated)
// and a credential of its own, valid on that door only and dead when the door closes. The CLI holds
// that credential, never the company's key: the gateway takes the credential off the request, puts
// the provider key on it, and passes only the two model APIs the CLIs speak to the configured
// provider. The answer streams back unchanged as it comes (Server-Sent Events), while the tokens the
// provider reports in it are counted for the run (domain/providerUsage.ts) — the run's usage, and
// its budget. A client that goes away (a cancelled run) ends the upstream request at once; what the
// provider had reported by then still counts.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmod, chown, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { Agent, request as undiciRequest } from 'undici';
import type { RunUsage } from '@ars/contract';
import { addGrowth, budgetTokens, NO_USAGE, ProviderUsageMeter, type ModelApi } from '../domain/providerUsage.js';

/** Where each API's requests go: the providers' base URLs as their SDKs spell them. */
export interface ModelUpstreams {
  /** The OpenAI Responses API base, `/v1` included (`OPENAI_BASE_URL`, e.g. `https://api.openai.com/v1`). */
  responses: string;
  /** The Anthropic Messages API base, without `/v1` (`ANTHROPIC_BASE_URL`, e.g. `https://api.anthropic.com`). */
  messages: string;
}

export interface ModelGatewaySettings {
  upstreams: ModelUpstreams;
  /** The company's keys, put on forwarded requests only (`CODEX_API_KEY` for Responses, `ANTHROPIC_API_KEY` for Messages); none: sent without. */
  providerKeys: Partial<Record<ModelApi, string>>;
  /** `RUN_TOKEN_BUDGET`: a run's input and output tokens past which its door refuses and the run ends; null: no budget. */
  runTokenBudget: number | null;
}

export type ModelDoorListen = { socketPath: string; owner?: { uid: number; gid: number } } | { loopbackPort: 0 };

/** One run's way to its model. */
export interface ModelDoor {
  /** `http://127.0.0.1:<port>` for a loopback listener; the socket's path otherwise. */
  address: string;
  /** The run's own credential: what its CLI is given instead of a provider key. */
  credential: string;
  /** Every token the provider reported for this run's answers; null before any answer reported usage. */
  usage(): RunUsage | null;
  /** Called once, when the run's tokens pass its budget. */
  onBudgetSpent(listener: (usage: RunUsage, budget: number) => void): void;
  /** Closes the door: the credential is dead, answers in flight are cut. */
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1), the ones the gateway sets itself, and every credential the CLI sent. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
  'authorization',
  'x-api-key',
  'api-key',
]);

/** A model's answer may take long to start (reasoning) and a stream may pause long between events. */
const UPSTREAM_TIMEOUT_MS = 10 * 60_000;

/** The upstream URL of a request path, or null: only the two model APIs pass. */
export function upstreamUrl(upstreams: ModelUpstreams, method: string | undefined, path: string): { api: ModelApi; url: string } | null {
  if (method !== 'POST') return null;
  const [pathname = '', query] = splitQuery(path);
  const suffix = query === undefined ? '' : `?${query}`;
  if (pathname === '/v1/responses') return { api: 'responses', url: `${trimSlash(upstreams.responses)}/responses${suffix}` };
  if (pathname === '/v1/messages') return { api: 'messages', url: `${trimSlash(upstreams.messages)}/v1/messages${suffix}` };
  return null;
}

export class ModelGateway {
  /** One connection pool to the providers for every door. */
  private readonly dispatcher = new Agent({ headersTimeout: UPSTREAM_TIMEOUT_MS, bodyTimeout: UPSTREAM_TIMEOUT_MS });

  constructor(private readonly settings: ModelGatewaySettings) {}

  /** A door for one run, with a fresh credential. */
  async open(listen: ModelDoorListen): Promise<ModelDoor> {
    const door = new RunDoor(this.settings, this.dispatcher);
    return door.listen(listen);
  }

  async close(): Promise<void> {
    await this.dispatcher.close().catch(() => undefined);
  }
}

class RunDoor {
  private readonly credential = `ars-run-${randomBytes(32).toString('base64url')}`;
  private readonly credentialDigest = digest(this.credential);
  private total: RunUsage | null = null;
  private spent = false;
  private closed = false;
  private readonly budgetListeners: ((usage: RunUsage, budget: number) => void)[] = [];
  private readonly server: Server;

  constructor(
    private readonly settings: ModelGatewaySettings,
    private readonly dispatcher: Agent,
  ) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
  }

  async listen(listen: ModelDoorListen): Promise<ModelDoor> {
    const address = await listenOn(this.server, listen);
    return {
      address,
      credential: this.credential,
      usage: () => this.total,
      onBudgetSpent: (listener) => {
        this.budgetListeners.push(listener);
      },
      close: async () => {
        this.closed = true;
        this.server.closeAllConnections();
        await new Promise<void>((resolve) => this.server.close(() => resolve()));
        if ('socketPath' in listen) await rm(listen.socketPath, { force: true });
      },
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = upstreamUrl(this.settings.upstreams, req.method, req.url ?? '/');
    if (!target) {
      req.resume();
      return answerError(res, 404, 'messages', `${req.method ?? '?'} ${(req.url ?? '/').split('?')[0]} is not a model API this sandbox may call`);
    }
    if (this.closed || !this.holdsCredential(req.headers)) {
      req.resume();
      return answerError(res, 401, target.api, "the run's model credential was refused (it is valid for its own run only, while the run lasts)");
    }
    if (this.spent) {
      req.resume();
      return answerError(res, 403, target.api, `the run's token budget of ${this.settings.runTokenBudget ?? 0} tokens is spent`);
    }
    // The client went away (the run ended, or its CLI gave up): the provider's request ends too.
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    let upstream: Awaited<ReturnType<typeof undiciRequest>>;
    try {
      upstream = await undiciRequest(target.url, {
        method: 'POST',
        headers: { ...forwardedHeaders(req.headers), ...this.providerCredential(target.api) },
        body: req,
        dispatcher: this.dispatcher,
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
    res.writeHead(upstream.statusCode, forwardedHeaders(upstream.headers));
    // Each event is sent on as it arrives: the CLI streams the answer to the run's watchers.
    res.flushHeaders();
    await this.relay(upstream, res, target.api);
  }

  /** The answer to the client as it comes, its usage counted on the way; a client gone ends it, what was read still counts. */
  private async relay(upstream: Awaited<ReturnType<typeof undiciRequest>>, res: ServerResponse, api: ModelApi): Promise<void> {
    const contentType = String(upstream.headers['content-type'] ?? '');
    const meter = new ProviderUsageMeter(api, contentType.includes('text/event-stream') ? 'sse' : 'json');
    let counted = NO_USAGE;
    const count = (): void => {
      const now = meter.current;
      this.total = addGrowth(this.total ?? NO_USAGE, counted, now);
      counted = now;
      this.checkBudget();
    };
    try {
      for await (const chunk of upstream.body) {
        const bytes = chunk as Buffer;
        if (meter.push(bytes)) count();
        if (res.destroyed) break;
        if (!res.write(bytes)) await new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once('drain', resolve).once('close', resolve)));
      }
      if (meter.end()) count();
      res.end();
    } catch {
      if (meter.end()) count();
      upstream.body.destroy();
      res.destroy();
    }
  }

  private checkBudget(): void {
    const budget = this.settings.runTokenBudget;
    if (budget === null || this.spent || this.total === null || budgetTokens(this.total) <= budget) return;
    this.spent = true;
    for (const listener of this.budgetListeners) listener(this.total, budget);
  }

  /** The run's credential as either CLI sends its key: `Authorization: Bearer …` (codex) or `x-api-key` (Claude Code). */
  private holdsCredential(headers: IncomingHttpHeaders): boolean {
    const bearer = /^Bearer\s+(\S+)$/i.exec(String(headers.authorization ?? ''))?.[1];
    const offered = [bearer, headerValue(headers['x-api-key'])].filter((value): value is string => value !== undefined && value !== '');
    // Every offer is compared, in constant time over digests: the answer says nothing of how close a guess was.
    let accepted = false;
    for (const value of offered) accepted = timingSafeEqual(digest(value), this.credentialDigest) || accepted;
    return accepted;
  }

  private providerCredential(api: ModelApi): Record<string, string> {
    const key = this.settings.providerKeys[api];
    if (!key) return {};
    return api === 'responses' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Headers passed on, either way: all but the hop-by-hop ones, those the gateway sets, and credentials. */
function forwardedHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name.toLowerCase())) continue;
    out[name] = value;
  }
  return out;
}

/** An error in the shape of the API the client called, so its CLI reports the message. */
function answerError(res: ServerResponse, status: number, api: ModelApi, message: string): void {
  const responsesType =
    status === 404 ? 'invalid_request_error' : status === 401 ? 'authentication_error' : status === 403 ? 'insufficient_quota' : 'server_error';
  const messagesType = status === 404 ? 'not_found_error' : status === 401 ? 'authentication_error' : status === 403 ? 'permission_error' : 'api_error';
  const body =
    api === 'responses' ? { error: { message, type: responsesType, code: null, param: null } } : { type: 'error', error: { type: messagesType, message } };
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function listenOn(server: Server, listen: ModelDoorListen): Promise<string> {
  if ('socketPath' in listen) {
    await rm(listen.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.socketPath, () => resolve());
    });
    // Only the sandbox's own processes connect: its uid (the service's own when sandboxes run as it).
    if (listen.owner) await chown(listen.socketPath, listen.owner.uid, listen.owner.gid);
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
