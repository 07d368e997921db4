// The model gateway: a harness CLI's one way to a model. Each run gets a door of its own and a
// credential of its own, valid on that door only and dead when the door closes. A door is an HTTP
// server on a Unix socket bound into its sandbox (on 127.0.0.1 when sandboxes are not isolated), or,
// for sandboxes that cannot be handed a socket (Kubernetes Pods), an entry of the gateway's one
// shared listener, found by its credential and answering only its Pod's IP address. The CLI holds
// that credential, never the company's key: the gateway takes the credential off the request, puts
// the provider key on it, and passes only the two model APIs the CLIs speak to the configured
// provider. The answer streams back unchanged as it comes (Server-Sent Events), while the tokens the
// provider reports in it are counted for the run (domain/providerUsage.ts) — the run's usage, and
// its budget. A client that goes away (a cancelled run) ends the upstream request at once; what the
// provider had reported by then still counts.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmod, chown, rm } from 'node:fs/promises';
import { isIP, type AddressInfo } from 'node:net';
import { Agent, request as undiciRequest } from 'undici';
import type { RunUsage } from '@ars/contract';
import { addGrowth, budgetTokens, NO_USAGE, ProviderUsageMeter, type ModelApi } from '../domain/providerUsage.js';
import { listenTcp } from './listenTcp.js';

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

export type ModelDoorListen =
  | { socketPath: string; owner?: { uid: number; gid: number } }
  | { loopbackPort: 0 }
  /**
   * On the gateway's shared listener (`listenShared`), for a sandbox that cannot be handed a socket of
   * its own (a Pod): the door is found by the credential a request carries, and answers only requests
   * whose remote address is `peerAddress` (the Pod's IP) when one is given.
   */
  | { shared: { peerAddress: string | null } };

/** Where the shared listener listens: `host` unset is every address (IPv6 and IPv4 where the host has both). */
export interface SharedListen {
  host?: string;
  /** 0: any free port (tests). */
  port: number;
}

/** One run's way to its model. */
export interface ModelDoor {
  /** `http://127.0.0.1:<port>` for a loopback listener, the shared listener's `http://<host>:<port>` for a shared door; the socket's path otherwise. */
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
  private readonly forwarder: Forwarder;
  /** The shared listener's open doors, by the SHA-256 digest (hex) of their credential. */
  private readonly sharedDoors = new Map<string, RunDoor>();
  private shared: { server: Server; address: string } | null = null;

  constructor(private readonly settings: ModelGatewaySettings) {
    this.forwarder = new Forwarder(settings, this.dispatcher);
  }

  /**
   * One HTTP server for every shared door (`open({shared})`): the sandboxes service's port for its
   * Pods. A request is served by the door whose credential it carries, from that door's peer only.
   */
  async listenShared(listen: SharedListen): Promise<{ address: string; port: number }> {
    if (this.shared) throw new Error(`the model gateway already listens for shared doors on ${this.shared.address}`);
    const server = createServer((req, res) => {
      this.forwarder.serve(req, res, (offered) => this.sharedDoorOf(offered, req.socket.remoteAddress)).catch(() => res.destroy());
    });
    const { address, port } = await listenTcp(server, listen);
    this.shared = { server, address };
    return { address, port };
  }

  /** A door for one run, with a fresh credential. */
  async open(listen: ModelDoorListen): Promise<ModelDoor> {
    if ('shared' in listen) return this.openShared(listen.shared.peerAddress);
    const door = new RunDoor(this.settings.runTokenBudget);
    const server = createServer((req, res) => {
      this.forwarder.serve(req, res, (offered) => (door.heldBy(offered) ? door : null)).catch(() => res.destroy());
    });
    const address = await listenOn(server, listen);
    return door.view(address, async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if ('socketPath' in listen) await rm(listen.socketPath, { force: true });
    });
  }

  /**
   * Whether `text` holds one of the company's provider keys: what a provider keeps out of every
   * sandbox. A key found inside a longer value counts too (`Bearer <key>`, a config line), unless it
   * is short enough to occur in another value by chance (a test's key): that one only as the whole value.
   */
  holdsProviderKey(text: string): boolean {
    return Object.values(this.settings.providerKeys).some((key) => key !== undefined && key !== '' && (key.length >= 16 ? text.includes(key) : text === key));
  }

  async close(): Promise<void> {
    const shared = this.shared;
    this.shared = null;
    for (const door of this.sharedDoors.values()) door.shut();
    this.sharedDoors.clear();
    if (shared) {
      shared.server.closeAllConnections();
      await new Promise<void>((resolve) => shared.server.close(() => resolve()));
    }
    await this.dispatcher.close().catch(() => undefined);
  }

  private openShared(peerAddress: string | null): ModelDoor {
    // A door no listener serves would hand its sandbox a URL that never answers: refused at once.
    if (!this.shared) throw new Error('the model gateway has no shared listener (listenShared) for shared doors');
    if (peerAddress !== null && isIP(peerAddress) === 0)
      throw new Error(`a shared door's peer address must be an IP address, got ${JSON.stringify(peerAddress)}`);
    const door = new RunDoor(this.settings.runTokenBudget, peerAddress === null ? null : canonicalAddress(peerAddress));
    const key = door.credentialDigest.toString('hex');
    this.sharedDoors.set(key, door);
    return door.view(this.shared.address, () => {
      this.sharedDoors.delete(key);
      return Promise.resolve();
    });
  }

  /**
   * The shared door a request's credential opens, when the request comes from that door's peer. The
   * lookup is by digest: what its timing could tell is about a SHA-256 of a 256-bit random secret,
   * which says nothing of the credential. A credential from another address opens nothing, so one
   * copied out of its Pod into another is useless there.
   */
  private sharedDoorOf(offered: readonly string[], remoteAddress: string | undefined): RunDoor | null {
    for (const value of offered) {
      const door = this.sharedDoors.get(digest(value).toString('hex'));
      if (!door) continue;
      if (door.peerAddress === null || (remoteAddress !== undefined && canonicalAddress(remoteAddress) === door.peerAddress)) return door;
    }
    return null;
  }
}

/** One run: its credential, what its answers reported, its budget, and the answers it has in flight. */
class RunDoor {
  readonly credential = `ars-run-${randomBytes(32).toString('base64url')}`;
  readonly credentialDigest = digest(this.credential);
  total: RunUsage | null = null;
  spent = false;
  closed = false;
  private readonly budgetListeners: ((usage: RunUsage, budget: number) => void)[] = [];
  private readonly inFlight = new Set<ServerResponse>();

  constructor(
    private readonly runTokenBudget: number | null,
    /** A shared door's peer (canonical form); null: any address. */
    readonly peerAddress: string | null = null,
  ) {}

  /** The run's credential among the offered, compared in constant time over digests: the answer says nothing of how close a guess was. */
  heldBy(offered: readonly string[]): boolean {
    let accepted = false;
    for (const value of offered) accepted = timingSafeEqual(digest(value), this.credentialDigest) || accepted;
    return accepted;
  }

  /** An answer being relayed for this run: cut when the door closes. */
  track(res: ServerResponse): void {
    this.inFlight.add(res);
    res.once('close', () => this.inFlight.delete(res));
  }

  /** Adds what an answer's usage grew by (from `before` to `after`) and tells the budget's listeners once it is passed. */
  count(before: RunUsage, after: RunUsage): void {
    this.total = addGrowth(this.total ?? NO_USAGE, before, after);
    const budget = this.runTokenBudget;
    if (budget === null || this.spent || budgetTokens(this.total) <= budget) return;
    this.spent = true;
    for (const listener of this.budgetListeners) listener(this.total, budget);
  }

  /** The credential dies and the answers in flight are cut. */
  shut(): void {
    this.closed = true;
    for (const res of this.inFlight) res.destroy();
    this.inFlight.clear();
  }

  view(address: string, release: () => Promise<void>): ModelDoor {
    return {
      address,
      credential: this.credential,
      usage: () => this.total,
      onBudgetSpent: (listener) => {
        this.budgetListeners.push(listener);
      },
      close: async () => {
        this.shut();
        await release();
      },
    };
  }
}

/** The one request handler of every door, a socket's own or the shared listener's. */
class Forwarder {
  constructor(
    private readonly settings: ModelGatewaySettings,
    private readonly dispatcher: Agent,
  ) {}

  /** `find` names the door the offered credentials open (null: none). */
  async serve(req: IncomingMessage, res: ServerResponse, find: (offered: readonly string[]) => RunDoor | null): Promise<void> {
    const target = upstreamUrl(this.settings.upstreams, req.method, req.url ?? '/');
    if (!target) {
      req.resume();
      return answerError(res, 404, 'messages', `${req.method ?? '?'} ${(req.url ?? '/').split('?')[0]} is not a model API this sandbox may call`);
    }
    const door = find(offeredCredentials(req.headers));
    if (door === null || door.closed) {
      req.resume();
      return answerError(res, 401, target.api, "the run's model credential was refused (it is valid for its own run only, while the run lasts)");
    }
    if (door.spent) {
      req.resume();
      return answerError(res, 403, target.api, `the run's token budget of ${this.settings.runTokenBudget ?? 0} tokens is spent`);
    }
    door.track(res);
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
    await relay(upstream, res, target.api, door);
  }

  private providerCredential(api: ModelApi): Record<string, string> {
    const key = this.settings.providerKeys[api];
    if (!key) return {};
    return api === 'responses' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  }
}

/** The answer to the client as it comes, its usage counted for the door's run on the way; a client gone ends it, what was read still counts. */
async function relay(upstream: Awaited<ReturnType<typeof undiciRequest>>, res: ServerResponse, api: ModelApi, door: RunDoor): Promise<void> {
  const contentType = String(upstream.headers['content-type'] ?? '');
  const meter = new ProviderUsageMeter(api, contentType.includes('text/event-stream') ? 'sse' : 'json');
  let counted = NO_USAGE;
  const count = (): void => {
    const now = meter.current;
    door.count(counted, now);
    counted = now;
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

/** The credentials a request offers, as either CLI sends its key: `Authorization: Bearer …` (codex) or `x-api-key` (Claude Code). */
function offeredCredentials(headers: IncomingHttpHeaders): string[] {
  const bearer = /^Bearer\s+(\S+)$/i.exec(String(headers.authorization ?? ''))?.[1];
  return [bearer, headerValue(headers['x-api-key'])].filter((value): value is string => value !== undefined && value !== '');
}

/**
 * An IP address in one spelling, so a Pod's IP from its status and the remote address of its
 * connection compare equal: an IPv4-mapped IPv6 address (a dual-stack listener's) as its IPv4, an
 * IPv6 address compressed and in lower case (the URL standard's serialisation).
 */
export function canonicalAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  if (!address.includes(':')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address.toLowerCase();
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

async function listenOn(server: Server, listen: Exclude<ModelDoorListen, { shared: unknown }>): Promise<string> {
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
