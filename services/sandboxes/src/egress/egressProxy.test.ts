// The egress proxy against a stand-in outside host (an HTTP server in its own network namespace,
// reached through a veth pair: testing/netnsTestHost.ts). These machines have no internet: every
// name the tests ask for resolves, through the injected lookup, to the test host or to an address the
// proxy must refuse before connecting, so no test traffic goes anywhere else.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_EGRESS_ALLOW, parseEgressAllow } from '../domain/egressPolicy.js';
import { startEgressProxy, type EgressDecisionEvent, type EgressProxy, type EgressProxyOptions } from './egressProxy.js';
import { startNetnsTestHost, TEST_HOST_GREETING, type NetnsTestHost } from './testing/netnsTestHost.js';

const PORT = 8080;
/** A secret in every request's Proxy-Authorization: it must appear in no event. */
const SECRET = 'Basic c2VjcmV0LXRva2Vu';

let testHost: NetnsTestHost;
let directory: string;
let proxy: EgressProxy;
const events: EgressDecisionEvent[] = [];
const lookups: string[] = [];
/** What each name resolves to, set by each test; a name not in it does not resolve. */
let names: Record<string, string[] | (() => string[])> = {};

async function lookup(host: string): Promise<string[]> {
  lookups.push(host);
  const answer = names[host];
  if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return typeof answer === 'function' ? answer() : answer;
}

function startProxy(overrides: Partial<EgressProxyOptions> = {}): Promise<EgressProxy> {
  return startEgressProxy({
    socketPath: join(directory, `egress-${Math.random().toString(36).slice(2)}.sock`),
    allow: EMPTY_EGRESS_ALLOW,
    onDecision: (event) => events.push(event),
    lookup,
    connectTimeoutMs: 2_000,
    ...overrides,
  });
}

beforeAll(async () => {
  testHost = await startNetnsTestHost({ port: PORT });
  directory = mkdtempSync(join(tmpdir(), 'egress-proxy-'));
  proxy = await startProxy();
}, 20_000);

afterAll(async () => {
  await proxy?.close();
  await testHost?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

beforeEach(() => {
  events.length = 0;
  lookups.length = 0;
  names = { 'testhost.example': [testHost.address], 'api.testhost.example': [testHost.address] };
  proxy.setAllow(EMPTY_EGRESS_ALLOW);
});

interface TunnelAnswer {
  status: number;
  /** The proxy's answer body (a refusal), or the origin's whole answer through the tunnel. */
  rest: string;
}

/** An open connection to the proxy with the proxy's answer head read; the rest keeps arriving in `received()`. */
interface OpenTunnel {
  socket: Socket;
  status: number;
  received(): string;
  closed: Promise<void>;
}

function openTunnel(target: string, through: EgressProxy = proxy): Promise<OpenTunnel> {
  return new Promise((resolve, reject) => {
    const socket = connect(through.socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to CONNECT ${target} within 5 s`));
    }, 5_000);
    let data = '';
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      const first = !data.includes('\r\n\r\n');
      data += chunk.toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      if (!first || end < 0) return;
      clearTimeout(timer);
      resolve({ socket, status: Number(data.slice(9, 12)), received: () => data.slice(end + 4), closed });
    });
    socket.once('close', () => {
      clearTimeout(timer);
      reject(new Error(`the proxy closed the connection without answering CONNECT ${target}`));
    });
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nProxy-Authorization: ${SECRET}\r\n\r\n`);
  });
}

/** CONNECT, then (when tunnelled) GET / through the tunnel; everything read until the connection ends. */
async function tunnel(target: string, through: EgressProxy = proxy): Promise<TunnelAnswer> {
  const open = await openTunnel(target, through);
  if (open.status === 200) open.socket.write(`GET / HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
  await bounded(open.closed, 5_000, 'the tunnel did not end');
  return { status: open.status, rest: open.received() };
}

interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A plain-HTTP request to the proxy (absolute-form `url`, or any request target). */
function viaProxy(url: string, method = 'GET'): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { socketPath: proxy.socketPath, path: url, method, headers: { 'proxy-authorization': SECRET, connection: 'close' }, timeout: 5_000 },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

function bounded<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

describe('a name not on the allowlist is refused: 403, an egress_refused event, and no lookup', () => {
  test('with no allowlist, CONNECT testhost.example is refused', async () => {
    const answer = await tunnel(`testhost.example:${PORT}`);
    expect(answer).toEqual({ status: 403, rest: 'egress refused: testhost.example is not on the egress allowlist\n' });
    expect(events).toEqual([{ kind: 'egress_refused', host: 'testhost.example', port: PORT, reason: 'testhost.example is not on the egress allowlist' }]);
    expect(lookups).toEqual([]);
  });
  test('an allowlisted name on a port it is not allowed on is refused', async () => {
    proxy.setAllow(parseEgressAllow('testhost.example'));
    const answer = await tunnel(`testhost.example:${PORT}`);
    expect(answer.status).toBe(403);
    expect(events).toEqual([
      { kind: 'egress_refused', host: 'testhost.example', port: PORT, reason: `port ${PORT} is not allowed for testhost.example (allowed: 80, 443)` },
    ]);
  });
});

describe('an allowlisted name is tunnelled to the address it resolves to, with an egress_allowed event', () => {
  test('an exact entry: the test host’s answer comes back through the tunnel', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    const answer = await tunnel(`TestHost.Example.:${PORT}`);
    expect(answer.status).toBe(200);
    expect(answer.rest).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.rest.endsWith(`${TEST_HOST_GREETING}\n`)).toBe(true);
    expect(events).toEqual([{ kind: 'egress_allowed', host: 'testhost.example', port: PORT, address: testHost.address }]);
    expect(lookups).toEqual(['testhost.example']);
  });
  test('a *.suffix entry: a name under it is tunnelled', async () => {
    proxy.setAllow(parseEgressAllow(`*.testhost.example:${PORT}`));
    const answer = await tunnel(`api.testhost.example:${PORT}`);
    expect(answer.rest.endsWith(`${TEST_HOST_GREETING}\n`)).toBe(true);
    expect(events).toEqual([{ kind: 'egress_allowed', host: 'api.testhost.example', port: PORT, address: testHost.address }]);
  });
  test('bytes sent right behind the CONNECT head (before the 200) are passed on to the origin', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    const answer = await rawExchange(
      proxy.socketPath,
      `CONNECT testhost.example:${PORT} HTTP/1.1\r\n\r\nGET /early HTTP/1.1\r\nHost: testhost.example\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(answer.endsWith('GET /early\n')).toBe(true);
  });
  test('a listener that throws does not take the proxy down', async () => {
    const throwing = await startProxy({
      allow: parseEgressAllow(`testhost.example:${PORT}`),
      onDecision: () => {
        throw new Error('the listener failed');
      },
    });
    try {
      expect((await tunnel(`testhost.example:${PORT}`, throwing)).rest.endsWith(`${TEST_HOST_GREETING}\n`)).toBe(true);
      expect((await tunnel(`other.example:${PORT}`, throwing)).status).toBe(403);
    } finally {
      await throwing.close();
    }
  });
  test('events carry the host and port only: no header of the request (Proxy-Authorization) reaches them', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    await tunnel(`testhost.example:${PORT}`);
    await tunnel(`other.example:${PORT}`);
    expect(events.map((event) => Object.keys(event).sort())).toEqual([
      ['address', 'host', 'kind', 'port'],
      ['host', 'kind', 'port', 'reason'],
    ]);
    expect(JSON.stringify(events)).not.toContain('c2VjcmV0');
  });
});

describe('an allowlisted name that resolves to a forbidden address is refused before any connection', () => {
  test.each([
    ['127.0.0.1', 'loopback (127.0.0.0/8)'],
    ['10.1.2.3', 'a private network (10.0.0.0/8)'],
    ['169.254.169.254', 'link-local (169.254.0.0/16, where cloud metadata services answer)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped (::ffff:0:0/96)'],
  ])('resolving to %s: %s', async (address, reason) => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    names['testhost.example'] = [address];
    const answer = await tunnel(`testhost.example:${PORT}`);
    expect(answer).toEqual({ status: 403, rest: `egress refused: testhost.example resolves to ${address}: ${reason}\n` });
    expect(events).toEqual([
      { kind: 'egress_refused', host: 'testhost.example', port: PORT, address, reason: `testhost.example resolves to ${address}: ${reason}` },
    ]);
  });
  test("resolving to this machine's own address (our end of the veth pair, found by default in os.networkInterfaces())", async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    names['testhost.example'] = [testHost.hostSideAddress];
    const answer = await tunnel(`testhost.example:${PORT}`);
    expect(answer.status).toBe(403);
    expect(events).toEqual([
      {
        kind: 'egress_refused',
        host: 'testhost.example',
        port: PORT,
        address: testHost.hostSideAddress,
        reason: `testhost.example resolves to ${testHost.hostSideAddress}: this machine's own address`,
      },
    ]);
  });
  test('one forbidden address among the answers refuses the name, even when the first is allowed', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    names['testhost.example'] = [testHost.address, '127.0.0.1'];
    expect((await tunnel(`testhost.example:${PORT}`)).status).toBe(403);
    expect(events).toEqual([expect.objectContaining({ kind: 'egress_refused', address: '127.0.0.1' })]);
  });
});

describe('a request naming an address is refused whatever the allowlist, the address normalised in the event', () => {
  test.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
  ])('CONNECT %s', async (host, address) => {
    proxy.setAllow(parseEgressAllow(`@npm *.testhost.example:${PORT} testhost.example:${PORT}`));
    const answer = await tunnel(`${host}:${PORT}`);
    expect(answer).toEqual({ status: 403, rest: `egress refused: ${address} is an address, not a name on the allowlist\n` });
    expect(events).toEqual([{ kind: 'egress_refused', host, port: PORT, address, reason: `${address} is an address, not a name on the allowlist` }]);
    expect(lookups).toEqual([]);
  });
  test('the test host’s own address, even though it is reachable, is refused as an address', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    expect((await tunnel(`${testHost.address}:${PORT}`)).status).toBe(403);
    expect((await viaProxy(`http://${testHost.address}:${PORT}/`)).status).toBe(403);
  });
});

describe('plain-HTTP absolute-form GET and HEAD are forwarded when allowed; other requests are refused', () => {
  test('GET http://testhost.example/… reaches the test host with its path and Host, without Proxy-Authorization', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    const answer = await viaProxy(`http://testhost.example:${PORT}/simple/left-pad/?x=1`);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('GET /simple/left-pad/?x=1\n');
    expect(answer.headers['x-seen-host']).toBe(`testhost.example:${PORT}`);
    expect(answer.headers['x-seen-proxy-authorization']).toBe('absent');
    expect(events).toEqual([{ kind: 'egress_allowed', host: 'testhost.example', port: PORT, address: testHost.address }]);
  });
  test('HEAD is forwarded too', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    const answer = await viaProxy(`http://testhost.example:${PORT}/`, 'HEAD');
    expect(answer.status).toBe(200);
    expect(answer.headers['x-seen-host']).toBe(`testhost.example:${PORT}`);
  });
  test('a name not on the allowlist: 403 and an egress_refused event', async () => {
    const answer = await viaProxy(`http://testhost.example:${PORT}/`);
    expect(answer).toMatchObject({ status: 403, body: 'egress refused: testhost.example is not on the egress allowlist\n' });
    expect(events).toEqual([{ kind: 'egress_refused', host: 'testhost.example', port: PORT, reason: 'testhost.example is not on the egress allowlist' }]);
  });
  test('another method is 405, a request that is not for a proxy 400, https:// 400; none is a decision', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    expect(await viaProxy(`http://testhost.example:${PORT}/`, 'POST')).toMatchObject({ status: 405 });
    expect(await viaProxy('/', 'GET')).toMatchObject({ status: 400, body: 'not a proxy request: send CONNECT host:port, or GET http://host/path\n' });
    expect(await viaProxy(`https://testhost.example:${PORT}/`)).toMatchObject({ status: 400, body: 'use CONNECT for https\n' });
    expect(await viaProxy(`http://user@testhost.example:${PORT}/`)).toMatchObject({ status: 400 });
    expect(events).toEqual([]);
  });
  test('CONNECT without a port is 400', async () => {
    expect((await tunnel('testhost.example')).status).toBe(400);
    expect(events).toEqual([]);
  });
});

describe('the name is resolved once per request and the address checked is the address connected to (no DNS rebinding)', () => {
  test('a lookup answering the outside host first and loopback afterwards: the request goes to the outside host, one lookup each', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT}`));
    let calls = 0;
    names['testhost.example'] = () => (calls++ === 0 ? [testHost.address] : ['127.0.0.1']);
    const first = await tunnel(`testhost.example:${PORT}`);
    expect(first.rest.endsWith(`${TEST_HOST_GREETING}\n`)).toBe(true);
    expect(lookups).toEqual(['testhost.example']);
    const second = await tunnel(`testhost.example:${PORT}`);
    expect(second.status).toBe(403);
    expect(lookups).toEqual(['testhost.example', 'testhost.example']);
    expect(events.map((event) => [event.kind, event.address])).toEqual([
      ['egress_allowed', testHost.address],
      ['egress_refused', '127.0.0.1'],
    ]);
  });
});

describe('a failure after an allowed decision answers 502 and reports nothing more', () => {
  test('the connection is refused (no server on that port of the test host): 502 after the one egress_allowed', async () => {
    proxy.setAllow(parseEgressAllow(`testhost.example:${PORT + 1}`));
    const answer = await tunnel(`testhost.example:${PORT + 1}`);
    expect(answer).toEqual({ status: 502, rest: `egress failed: could not connect to testhost.example:${PORT + 1} (ECONNREFUSED)\n` });
    expect(events).toEqual([{ kind: 'egress_allowed', host: 'testhost.example', port: PORT + 1, address: testHost.address }]);
  });
  test('an allowed name that does not resolve: 502, no event', async () => {
    proxy.setAllow(parseEgressAllow(`nowhere.example:${PORT}`));
    expect(await tunnel(`nowhere.example:${PORT}`)).toEqual({ status: 502, rest: 'egress failed: nowhere.example could not be resolved (ENOTFOUND)\n' });
    expect(events).toEqual([]);
  });
});

describe('a request head is bounded in size (8 KB, else 431) and in time (else 408 and closed)', () => {
  test('a head over 8 KB is answered 431', async () => {
    const answer = await rawExchange(proxy.socketPath, `CONNECT testhost.example:${PORT} HTTP/1.1\r\nX-Padding: ${'a'.repeat(9_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(events).toEqual([]);
  });
  test('a connection left half-way through its head is answered 408 and closed within the head timeout', async () => {
    const quick = await startProxy({ headTimeoutMs: 300 });
    try {
      const started = Date.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(quick.socketPath);
        let data = '';
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error('still open after 3 s'));
        }, 3_000);
        socket.on('error', () => undefined);
        socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(data);
        });
        socket.write(`CONNECT testhost.example:${PORT} HTTP/1.1\r\nHost: test`);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await quick.close();
    }
  });
});

describe('setAllow decides the next requests, and ends open tunnels the new list refuses', () => {
  test('of two open tunnels, the one the new list refuses is ended, the other still carries its request', async () => {
    names['other.testhost.example'] = [testHost.address];
    proxy.setAllow(parseEgressAllow(`*.testhost.example:${PORT} testhost.example:${PORT}`));
    const refused = await openTunnel(`testhost.example:${PORT}`);
    const kept = await openTunnel(`other.testhost.example:${PORT}`);
    expect([refused.status, kept.status]).toEqual([200, 200]);
    proxy.setAllow(parseEgressAllow(`*.testhost.example:${PORT}`));
    await bounded(refused.closed, 2_000, 'the refused tunnel is still open');
    kept.socket.write(`GET / HTTP/1.1\r\nHost: other.testhost.example\r\nConnection: close\r\n\r\n`);
    await bounded(kept.closed, 5_000, 'the kept tunnel did not carry its request');
    expect(kept.received().endsWith(`${TEST_HOST_GREETING}\n`)).toBe(true);
    expect((await tunnel(`testhost.example:${PORT}`)).status).toBe(403);
  });
});

describe('the socket is the sandbox’s alone: mode 0600, given to socketOwner; close removes it and ends tunnels', () => {
  test('mode 0600 and the owner given; close ends an open tunnel and removes the file', async () => {
    const owned = await startProxy({ socketOwner: { uid: 65_534, gid: 65_534 }, allow: parseEgressAllow(`testhost.example:${PORT}`) });
    const stat = statSync(owned.socketPath);
    expect(stat.mode & 0o777).toBe(0o600);
    expect([stat.uid, stat.gid]).toEqual([65_534, 65_534]);
    const open = await openTunnel(`testhost.example:${PORT}`, owned);
    expect(open.status).toBe(200);
    await bounded(owned.close(), 2_000, 'close did not finish');
    await bounded(open.closed, 2_000, 'the tunnel outlived close');
    expect(existsSync(owned.socketPath)).toBe(false);
  });
});

/** Raw bytes written to the proxy's socket, and everything it answers until it closes (5 s at most). */
function rawExchange(socketPath: string, request: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(socketPath);
    let data = '';
    const timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5_000);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
    socket.write(request);
  });
}
