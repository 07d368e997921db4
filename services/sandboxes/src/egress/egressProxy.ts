// A sandbox's one way out to the internet: an HTTP proxy. Locally, one per sandbox and phase on a
// Unix socket bound into the sandbox (a forwarder inside exposes it as HTTPS_PROXY / HTTP_PROXY);
// for Kubernetes Pods, which cannot be handed a socket, one shared TCP listener where each request
// names its grant by a credential (Proxy-Authorization) and must come from that grant's Pod IP. It tunnels `CONNECT host:port` and
// forwards plain-HTTP absolute-form GET/HEAD, each only to a host the allowlist names
// (src/domain/egressPolicy.ts). The proxy resolves the name itself, refuses it when any address it
// resolves to is forbidden (loopback, private, metadata, this machine's own…), and connects to the
// address it checked — never re-resolving, so a name cannot be rebound inward between check and use.
//
// Nothing of a request is reported beyond its host and port (never its headers: Proxy-Authorization
// and the like stay with the request); each policy decision goes to onDecision.
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { connect, isIP, Socket } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { lookup as dnsLookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import { chmod, chown, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { listenTcp } from '../modelAccess/listenTcp.js';
import { egressDecision, forbiddenAddress, parseIpLiteral, parsePort, type EgressAllowList } from '../domain/egressPolicy.js';

/** One policy decision. `address` is the one connected to (allowed) or the one that made the refusal. */
export type EgressDecisionEvent =
  | { kind: 'egress_allowed'; host: string; port: number; address: string }
  | { kind: 'egress_refused'; host: string; port: number; address?: string; reason: string };

/** How the proxy resolves, bounds and counts, whoever's requests it serves. */
export interface EgressProxyTuning {
  /** A name's addresses; default: the system resolver (`dns.lookup`, all addresses, IPv4 first). */
  lookup?: (host: string) => Promise<string[]>;
  /** This machine's own addresses, read per request; default: every address of os.networkInterfaces(). */
  hostAddresses?: () => string[];
  /** Bounds the name's resolution, and then the connection to its address; default 10 s. */
  connectTimeoutMs?: number;
  /** A request head must arrive whole within this; default 10 s. */
  headTimeoutMs?: number;
  /** A tunnel or forwarded exchange silent this long either way is ended; default 10 min. */
  idleTimeoutMs?: number;
  /** Connections open at once on the listener; default 256. */
  maxConnections?: number;
}

export interface EgressProxyOptions extends EgressProxyTuning {
  socketPath: string;
  allow: EgressAllowList;
  /** Called once per policy decision; it must not throw (what it throws is dropped, so the proxy stays up). */
  onDecision: (event: EgressDecisionEvent) => void;
  /** Who the socket file is given to (the sandbox's unprivileged uid); it is mode 0600 either way. */
  socketOwner?: { uid: number; gid: number };
}

export interface SharedEgressProxyOptions extends EgressProxyTuning {
  /** The TCP port (0: any free one) and address (default every address) Pods connect to. */
  port: number;
  host?: string;
}

/** What one grant of the shared proxy lets a Pod reach, and where its decisions go. */
export interface EgressGrantRequest {
  /** The only remote address the grant's credential is accepted from (the Pod's IP); null: any (a Pod not yet given one: its clone). */
  peerAddress: string | null;
  allow: EgressAllowList;
  onDecision: (event: EgressDecisionEvent) => void;
}

export interface EgressGrant {
  /** A secret of 256 random bits: the password of the proxy URL's user part (`Proxy-Authorization: Basic`). */
  readonly credential: string;
  /** `http://ars:<credential>@<host>:<port>` for a listener `reachedAt` (`http://host:port`). */
  proxyUrl(reachedAt: string): string;
  /** Revokes the credential and ends the grant's open tunnels. */
  close(): void;
}

export interface SharedEgressProxy {
  /** `http://<address>:<port>` as bound. */
  address: string;
  port: number;
  grant(request: EgressGrantRequest): EgressGrant;
  close(): Promise<void>;
}

/** The user part of a grant's proxy URL: only the password (the credential) is checked. */
export const EGRESS_PROXY_USER = 'ars';

export interface EgressProxy {
  socketPath: string;
  /** Replaces the allowlist (install's, then the agent's); open tunnels the new one refuses are ended. */
  setAllow(allow: EgressAllowList): void;
  /** Stops listening, ends every tunnel and forwarded exchange, removes the socket file. */
  close(): Promise<void>;
}

/** A request head (request line and headers) over this is answered 431. */
export const EGRESS_MAX_HEAD_BYTES = 8 * 1024;

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_HEAD_TIMEOUT_MS = 10_000;
const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_MAX_CONNECTIONS = 256;

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never passed on, either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** A request admitted by name, tracked so that a new allowlist (or close) can end it. */
interface Exchange {
  name: string;
  port: number;
  end(): void;
}

type Admission = { ok: true; name: string; address: string; exchange: Exchange } | { ok: false; status: number; text: string };

/** Where a request stands: the grant it may use, or why it may use none (the shared listener's 407). */
type Identified = { grant: GrantState } | { refused: { status: number; text: string; headers?: Record<string, string> } };

/** One allowlist in use: its decisions, and the exchanges it admitted (ended when it changes or closes). */
class GrantState {
  readonly exchanges = new Set<Exchange>();
  closed = false;

  constructor(
    public allow: EgressAllowList,
    private readonly onDecision: (event: EgressDecisionEvent) => void,
  ) {}

  report(event: EgressDecisionEvent): void {
    try {
      this.onDecision(event);
    } catch {
      // A failing listener must not take down the proxy (and with it the service hosting it).
    }
  }

  setAllow(next: EgressAllowList): void {
    this.allow = next;
    for (const exchange of [...this.exchanges]) {
      if (egressDecision(next, exchange.name, exchange.port).allowed) continue;
      this.exchanges.delete(exchange);
      exchange.end();
    }
  }

  end(): void {
    this.closed = true;
    for (const exchange of [...this.exchanges]) exchange.end();
    this.exchanges.clear();
  }
}

/** The HTTP server both kinds of proxy run: the policy applied to each request of the grant it identifies. */
function egressServer(tuning: EgressProxyTuning, identify: (req: IncomingMessage) => Identified): Server {
  const lookup = tuning.lookup ?? systemLookup;
  const hostAddresses = tuning.hostAddresses ?? interfaceAddresses;
  const connectTimeoutMs = tuning.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const headTimeoutMs = tuning.headTimeoutMs ?? DEFAULT_HEAD_TIMEOUT_MS;
  const idleTimeoutMs = tuning.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;

  /** The policy, then the name's addresses, for one request: the decision reported either way. */
  const admit = async (grant: GrantState, host: string, port: number, end: () => void): Promise<Admission> => {
    const decision = egressDecision(grant.allow, host, port);
    if (!decision.allowed) {
      const address = decision.address === undefined ? {} : { address: decision.address };
      grant.report({ kind: 'egress_refused', host: decision.name ?? printable(host), port, ...address, reason: decision.reason });
      return { ok: false, status: 403, text: `egress refused: ${decision.reason}` };
    }
    const name = decision.name;
    const exchange: Exchange = { name, port, end };
    grant.exchanges.add(exchange);
    const fail = (status: number, text: string): Admission => {
      grant.exchanges.delete(exchange);
      return { ok: false, status, text };
    };
    let addresses: string[];
    try {
      addresses = await withTimeout(lookup(name), connectTimeoutMs, `resolving ${name} took over ${connectTimeoutMs} ms`);
    } catch (error) {
      return fail(502, `egress failed: ${name} could not be resolved (${errorCode(error)})`);
    }
    // Ended while resolving: by a new allowlist that refuses it, or by close.
    if (grant.closed || !grant.exchanges.has(exchange)) return fail(403, 'egress refused: the allowlist changed or the proxy closed');
    if (addresses.length === 0) return fail(502, `egress failed: ${name} has no address`);
    // Every address is checked, not only the one connected to: a name with any inward address is
    // refused whole (a resolver answer mixing outside and inside addresses is itself the attack).
    const own = hostAddresses();
    for (const address of addresses) {
      const forbidden = forbiddenAddress(address, own);
      if (forbidden === null) continue;
      const shown = parseIpLiteral(address) ?? printable(address);
      const reason = `${name} resolves to ${shown}: ${forbidden}`;
      grant.report({ kind: 'egress_refused', host: name, port, address: shown, reason });
      return fail(403, `egress refused: ${reason}`);
    }
    const address = parseIpLiteral(addresses[0] ?? '') ?? '';
    grant.report({ kind: 'egress_allowed', host: name, port, address });
    return { ok: true, name, address, exchange };
  };

  const server = createServer({
    maxHeaderSize: EGRESS_MAX_HEAD_BYTES,
    headersTimeout: headTimeoutMs,
    // The whole-request deadline is the idle timeout's job: a request here is GET or HEAD.
    requestTimeout: 0,
    connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(headTimeoutMs / 4))),
    keepAliveTimeout: 5_000,
  });
  server.maxConnections = tuning.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  server.timeout = idleTimeoutMs;

  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => client.destroy());
    tunnel(req, client, head).catch(() => client.destroy());
  });

  const tunnel = async (req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> => {
    const identified = identify(req);
    if ('refused' in identified) return answerRaw(client, identified.refused.status, identified.refused.text, identified.refused.headers);
    const { grant } = identified;
    const target = parseAuthority(req.url ?? '', null);
    if (!target) return answerRaw(client, 400, 'CONNECT needs host:port');
    let upstream: Socket | undefined;
    const admission = await admit(grant, target.host, target.port, () => {
      client.destroy();
      upstream?.destroy();
    });
    if (!admission.ok) return answerRaw(client, admission.status, admission.text);
    const { exchange } = admission;
    try {
      upstream = await connectTo(admission.address, target.port, connectTimeoutMs);
    } catch (error) {
      grant.exchanges.delete(exchange);
      return answerRaw(client, 502, `egress failed: could not connect to ${admission.name}:${target.port} (${errorCode(error)})`);
    }
    if (client.destroyed || !grant.exchanges.has(exchange)) {
      // Ended while connecting: by a new allowlist, close, or the client leaving.
      grant.exchanges.delete(exchange);
      upstream.destroy();
      client.destroy();
      return;
    }
    const peer = upstream;
    const finish = (): void => {
      grant.exchanges.delete(exchange);
      peer.destroy();
      client.destroy();
    };
    peer.on('error', finish);
    client.on('error', finish).on('close', finish);
    // The origin done: what it sent is still flushed to the client (destroying would drop it).
    peer.on('close', () => {
      grant.exchanges.delete(exchange);
      client.end();
    });
    peer.setTimeout(idleTimeoutMs, finish);
    if (client instanceof Socket) client.setTimeout(idleTimeoutMs, finish);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) peer.write(head);
    client.pipe(peer);
    peer.pipe(client);
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    forward(req, res).catch(() => res.destroy());
  });

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const identified = identify(req);
    if ('refused' in identified) {
      req.resume();
      const { status, text, headers } = identified.refused;
      return answer(res, status, text, headers);
    }
    const { grant } = identified;
    const url = req.url ?? '';
    if (!/^http:\/\//i.test(url)) {
      req.resume();
      return answer(res, 400, /^https:\/\//i.test(url) ? 'use CONNECT for https' : 'not a proxy request: send CONNECT host:port, or GET http://host/path');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.resume();
      return answer(res, 405, 'only GET and HEAD are forwarded over plain HTTP; use CONNECT (https) for anything else');
    }
    const rest = url.slice('http://'.length);
    const authorityEnd = rest.search(/[/?#]/);
    const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
    const path = authorityEnd < 0 ? '/' : rest[authorityEnd] === '/' ? rest.slice(authorityEnd).split('#')[0] : `/${rest.slice(authorityEnd).split('#')[0]}`;
    const target = parseAuthority(authority, 80);
    if (!target || authority.includes('@')) {
      req.resume();
      return answer(res, 400, 'the URL needs a host (and no user part)');
    }
    let upstream: Socket | undefined;
    const admission = await admit(grant, target.host, target.port, () => {
      res.destroy();
      upstream?.destroy();
    });
    if (!admission.ok) {
      req.resume();
      return answer(res, admission.status, admission.text);
    }
    const { exchange } = admission;
    try {
      upstream = await connectTo(admission.address, target.port, connectTimeoutMs);
    } catch (error) {
      grant.exchanges.delete(exchange);
      req.resume();
      return answer(res, 502, `egress failed: could not connect to ${admission.name}:${target.port} (${errorCode(error)})`);
    }
    if (res.destroyed || !grant.exchanges.has(exchange)) {
      grant.exchanges.delete(exchange);
      upstream.destroy();
      return;
    }
    const socket = upstream;
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
    res.on('close', () => {
      grant.exchanges.delete(exchange);
      socket.destroy();
    });
    const hostHeader = target.port === 80 ? admission.name : `${admission.name}:${target.port}`;
    const outgoing = httpRequest({
      createConnection: () => socket,
      method: req.method,
      path: path ?? '/',
      headers: forwardedHeaders(req.rawHeaders, hostHeader),
    });
    outgoing.on('response', (incoming: IncomingMessage) => {
      res.writeHead(incoming.statusCode ?? 502, withoutHopByHop(incoming.rawHeaders));
      pipeline(incoming, res).catch(() => res.destroy());
    });
    outgoing.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else answer(res, 502, `egress failed: ${admission.name}:${target.port} answered badly (${errorCode(error)})`);
    });
    req.pipe(outgoing);
  };

  server.on('upgrade', (_req: IncomingMessage, client: Duplex) => {
    client.on('error', () => client.destroy());
    answerRaw(client, 400, 'upgrades are not proxied; use CONNECT');
  });

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    if (error.code === 'HPE_HEADER_OVERFLOW') return answerRaw(socket, 431, `request head over ${EGRESS_MAX_HEAD_BYTES} bytes`);
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return answerRaw(socket, 408, `request head not received within ${headTimeoutMs} ms`);
    answerRaw(socket, 400, 'malformed request');
  });
  return server;
}

/** Stops a proxy's server: no new connections, every open one ended. */
async function stopServer(server: Server): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await stopped;
}

/** A sandbox's own proxy on a Unix socket: one allowlist (setAllow changes it), everything on the socket follows it. */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const grant = new GrantState(options.allow, options.onDecision);
  const server = egressServer(options, () => ({ grant }));
  await rm(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  try {
    // Only the sandbox's own uid connects: 0600, given to that uid when it is not ours.
    await chmod(options.socketPath, 0o600);
    if (options.socketOwner) await chown(options.socketPath, options.socketOwner.uid, options.socketOwner.gid);
  } catch (error) {
    server.close();
    await rm(options.socketPath, { force: true });
    throw error;
  }

  return {
    socketPath: options.socketPath,
    setAllow: (next) => grant.setAllow(next),
    close: async () => {
      if (grant.closed) return;
      grant.end();
      await stopServer(server);
      await rm(options.socketPath, { force: true });
    },
  };
}

/** What a request without a valid grant is told: the scheme to authenticate with (RFC 9110 §11.7.1). */
const PROXY_AUTH_REFUSAL = {
  status: 407,
  text: "egress refused: this proxy needs the sandbox's own credential (the user part of its HTTPS_PROXY)",
  headers: { 'proxy-authenticate': 'Basic realm="ars-egress"' },
};

/**
 * One TCP listener for every Pod's grants (Kubernetes: a Pod cannot be handed a socket). A request
 * is served under the grant whose credential its Proxy-Authorization carries (Basic, the password;
 * looked up by SHA-256 digest, as the model gateway's doors), and only from that grant's peer
 * address: a credential copied into another Pod is refused like an unknown one (407).
 */
export async function startSharedEgressProxy(options: SharedEgressProxyOptions): Promise<SharedEgressProxy> {
  const grants = new Map<string, { state: GrantState; peerAddress: string | null }>();
  const identify = (req: IncomingMessage): Identified => {
    const credential = basicPassword(req.headers['proxy-authorization']);
    const found = credential === null ? undefined : grants.get(digestOf(credential));
    if (!found) return { refused: PROXY_AUTH_REFUSAL };
    const remote = req.socket.remoteAddress;
    if (found.peerAddress !== null && (remote === undefined || canonicalIp(remote) !== found.peerAddress)) return { refused: PROXY_AUTH_REFUSAL };
    return { grant: found.state };
  };
  const server = egressServer(options, identify);
  const { address, port } = await listenTcp(server, options);
  return {
    address,
    port,
    grant: (request) => {
      if (request.peerAddress !== null && isIP(request.peerAddress) === 0)
        throw new Error(`an egress grant's peer address must be an IP address, got ${JSON.stringify(request.peerAddress)}`);
      const credential = randomBytes(32).toString('base64url');
      const key = digestOf(credential);
      const state = new GrantState(request.allow, request.onDecision);
      grants.set(key, { state, peerAddress: request.peerAddress === null ? null : canonicalIp(request.peerAddress) });
      return {
        credential,
        proxyUrl: (reachedAt) => reachedAt.replace(/^http:\/\//, `http://${EGRESS_PROXY_USER}:${credential}@`),
        close: () => {
          grants.delete(key);
          state.end();
        },
      };
    },
    close: async () => {
      for (const { state } of grants.values()) state.end();
      grants.clear();
      await stopServer(server);
    },
  };
}

/** The password of a `Basic` Proxy-Authorization (RFC 7617), or null. */
function basicPassword(header: string | undefined): string | null {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}

function digestOf(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}

/** An IP as one spelling: IPv4-mapped IPv6 (`::ffff:10.0.0.5`) as its IPv4, lower case. */
function canonicalIp(address: string): string {
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped?.[1] ?? lower;
}

/**
 * `host:port` (`[v6]:port` for an IPv6 literal) as a CONNECT target or a URL's authority; the port
 * is required when `defaultPort` is null. Null when malformed.
 */
function parseAuthority(authority: string, defaultPort: number | null): { host: string; port: number } | null {
  let host: string;
  let portText: string | undefined;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return null;
    host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return null;
    portText = after === '' ? undefined : after.slice(1);
  } else {
    const colon = authority.lastIndexOf(':');
    host = colon < 0 ? authority : authority.slice(0, colon);
    portText = colon < 0 ? undefined : authority.slice(colon + 1);
  }
  if (host === '') return null;
  if (portText === undefined) return defaultPort === null ? null : { host, port: defaultPort };
  const port = parsePort(portText);
  return port === null ? null : { host, port };
}

/** A TCP connection to an address (an IP: net.connect does no lookup for one), bounded in time. */
function connectTo(address: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`connecting took over ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(message), { code: 'ETIMEDOUT' })), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function systemLookup(host: string): Promise<string[]> {
  // IPv4 first: a sandbox host often has IPv6 addresses but no IPv6 route out.
  const answers = await dnsLookup(host, { all: true, order: 'ipv4first' });
  return answers.map((answer) => answer.address);
}

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((addresses) => (addresses ?? []).map((entry) => entry.address));
}

/** The request's headers for the origin: hop-by-hop ones (and those Connection names) removed, Host the URL's. */
function forwardedHeaders(rawHeaders: string[], host: string): OutgoingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  const kept = withoutHopByHop(rawHeaders);
  for (let index = 0; index + 1 < kept.length; index += 2) {
    const name = (kept[index] ?? '').toLowerCase();
    const value = kept[index + 1] ?? '';
    if (name === 'host') continue;
    const existing = headers[name];
    headers[name] = existing === undefined ? value : [...[existing].flat(), value];
  }
  return { ...headers, host, connection: 'close' };
}

/** Raw header pairs without the hop-by-hop ones, nor those the Connection header names. */
function withoutHopByHop(rawHeaders: string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] ?? '').toLowerCase() !== 'connection') continue;
    for (const token of (rawHeaders[index + 1] ?? '').split(',')) named.add(token.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (named.has((rawHeaders[index] ?? '').toLowerCase())) continue;
    out.push(rawHeaders[index] ?? '', rawHeaders[index + 1] ?? '');
  }
  return out;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
};

/** A one-line text answer on a socket no longer owned by the HTTP server (CONNECT, upgrade, a bad head). */
function answerRaw(socket: Duplex, status: number, text: string, extraHeaders: Record<string, string> = {}): void {
  const body = `${text}\n`;
  const extra = Object.entries(extraHeaders)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n${extra}content-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function answer(res: ServerResponse, status: number, text: string, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { ...extraHeaders, 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  res.end(`${text}\n`);
}

/** A requested host as an event may carry it: printable ASCII only, bounded. */
function printable(host: string): string {
  return host
    .toLowerCase()
    .replace(/[^\x21-\x7e]/g, '?')
    .slice(0, 255);
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : 'error';
}
