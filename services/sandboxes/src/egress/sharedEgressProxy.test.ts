// The shared egress proxy (Kubernetes: one TCP listener for every Pod) against a stand-in outside
// host in its own network namespace (testing/netnsTestHost.ts). These machines have no internet:
// every name the tests ask for resolves, through the injected lookup, to the test host.
// A Pod is played by a connection from 127.0.0.1 (its "Pod IP"); another Pod by one from 127.0.0.2.
import { connect, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { EMPTY_EGRESS_ALLOW, parseEgressAllow } from '../domain/egressPolicy.js';
import { EGRESS_PROXY_USER, startSharedEgressProxy, type EgressDecisionEvent, type SharedEgressProxy } from './egressProxy.js';
import { startNetnsTestHost, TEST_HOST_GREETING, type NetnsTestHost } from './testing/netnsTestHost.js';

const PORT = 8080;
const POD_IP = '127.0.0.1';
const OTHER_POD_IP = '127.0.0.2';

let testHost: NetnsTestHost;
let proxy: SharedEgressProxy;

beforeAll(async () => {
  testHost = await startNetnsTestHost({ port: PORT });
  proxy = await startSharedEgressProxy({
    port: 0,
    host: '127.0.0.1',
    lookup: (host) =>
      host === 'testhost.example' || host === 'other.example'
        ? Promise.resolve([testHost.address])
        : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })),
    connectTimeoutMs: 2_000,
  });
}, 20_000);

afterAll(async () => {
  await proxy?.close();
  await testHost?.close();
});

function basic(credential: string): string {
  return `Basic ${Buffer.from(`${EGRESS_PROXY_USER}:${credential}`).toString('base64')}`;
}

/** CONNECT through the proxy from `localAddress`, then GET / through the tunnel; the status and everything read until the end. */
function tunnel(target: string, authorization: string | null, localAddress = POD_IP): Promise<{ status: number; rest: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const url = new URL(proxy.address);
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of CONNECT ${target} within 5 s`));
    }, 5_000);
    let data = '';
    let asked = false;
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      if (!asked && data.startsWith('HTTP/1.1 200') && data.includes('\r\n\r\n')) {
        asked = true;
        socket.write(`GET / HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      const end = data.indexOf('\r\n\r\n');
      resolve({ status: Number(data.slice(9, 12)), rest: end < 0 ? '' : data.slice(end + 4), socket });
    });
    const auth = authorization === null ? '' : `Proxy-Authorization: ${authorization}\r\n`;
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
  });
}

describe('a request is served under the grant its credential names, from that grant’s Pod IP only', () => {
  test('the grant’s credential from its Pod reaches an allowlisted host; the decision is the grant’s', async () => {
    const events: EgressDecisionEvent[] = [];
    const grant = proxy.grant({ peerAddress: POD_IP, allow: parseEgressAllow('testhost.example:8080'), onDecision: (event) => events.push(event) });
    try {
      const answer = await tunnel(`testhost.example:${PORT}`, basic(grant.credential));
      expect(answer.status).toBe(200);
      expect(answer.rest).toContain(TEST_HOST_GREETING);
      expect(events).toEqual([{ kind: 'egress_allowed', host: 'testhost.example', port: PORT, address: testHost.address }]);
    } finally {
      grant.close();
    }
  });

  test('no credential, an unknown one, or another grant’s from another Pod: 407 asking for Basic, no decision, no connection', async () => {
    const events: EgressDecisionEvent[] = [];
    const grant = proxy.grant({ peerAddress: POD_IP, allow: parseEgressAllow('testhost.example:8080'), onDecision: (event) => events.push(event) });
    try {
      for (const [authorization, from] of [
        [null, POD_IP],
        [basic('not-a-credential'), POD_IP],
        [`Bearer ${grant.credential}`, POD_IP],
        [basic(grant.credential), OTHER_POD_IP],
      ] as const) {
        const answer = await tunnel(`testhost.example:${PORT}`, authorization, from);
        expect({ authorization, from, status: answer.status }).toEqual({ authorization, from, status: 407 });
        expect(answer.rest).toContain("this proxy needs the sandbox's own credential");
      }
      expect(events).toEqual([]);
    } finally {
      grant.close();
    }
  });

  test('each grant follows its own allowlist: one sandbox never uses another’s', async () => {
    const wide = proxy.grant({ peerAddress: OTHER_POD_IP, allow: parseEgressAllow('testhost.example:8080,other.example:8080'), onDecision: () => undefined });
    const refused: EgressDecisionEvent[] = [];
    const narrow = proxy.grant({ peerAddress: POD_IP, allow: EMPTY_EGRESS_ALLOW, onDecision: (event) => refused.push(event) });
    try {
      expect((await tunnel(`other.example:${PORT}`, basic(narrow.credential))).status).toBe(403);
      expect(refused).toEqual([expect.objectContaining({ kind: 'egress_refused', host: 'other.example' })]);
      expect((await tunnel(`other.example:${PORT}`, basic(wide.credential), OTHER_POD_IP)).status).toBe(200);
    } finally {
      wide.close();
      narrow.close();
    }
  });

  test('a grant without a peer address (a Pod before it has an IP: its clone) is accepted from any address', async () => {
    const grant = proxy.grant({ peerAddress: null, allow: parseEgressAllow('testhost.example:8080'), onDecision: () => undefined });
    try {
      expect((await tunnel(`testhost.example:${PORT}`, basic(grant.credential), OTHER_POD_IP)).status).toBe(200);
    } finally {
      grant.close();
    }
  });

  test('plain-HTTP GET carries the credential the same way: 407 without it, forwarded with it', async () => {
    const grant = proxy.grant({ peerAddress: POD_IP, allow: parseEgressAllow('testhost.example:8080'), onDecision: () => undefined });
    try {
      const get = (authorization: string | null): Promise<{ status: number; headers: Record<string, unknown>; body: string }> =>
        new Promise((resolve, reject) => {
          const url = new URL(proxy.address);
          const req = httpRequest(
            {
              host: url.hostname,
              port: Number(url.port),
              localAddress: POD_IP,
              path: `http://testhost.example:${PORT}/`,
              headers: { connection: 'close', ...(authorization === null ? {} : { 'proxy-authorization': authorization }) },
              timeout: 5_000,
            },
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
      const refused = await get(null);
      expect(refused.status).toBe(407);
      expect(refused.headers['proxy-authenticate']).toBe('Basic realm="ars-egress"');
      const forwarded = await get(basic(grant.credential));
      expect(forwarded.status).toBe(200);
      expect(forwarded.body).toContain(TEST_HOST_GREETING);
    } finally {
      grant.close();
    }
  });
});

describe('a closed grant is dead: its credential is refused and its open tunnels end', () => {
  test('close ends an open tunnel, and the credential is 407 afterwards', async () => {
    const grant = proxy.grant({ peerAddress: POD_IP, allow: parseEgressAllow('testhost.example:8080'), onDecision: () => undefined });
    const url = new URL(proxy.address);
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: POD_IP });
    socket.on('error', () => undefined);
    const established = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`CONNECT testhost.example:${PORT} HTTP/1.1\r\nHost: testhost.example\r\nProxy-Authorization: ${basic(grant.credential)}\r\n\r\n`);
    await established;
    grant.close();
    await closed;
    expect((await tunnel(`testhost.example:${PORT}`, basic(grant.credential))).status).toBe(407);
  });

  test('the proxy URL a Pod is given carries the credential as the password of user "ars"', () => {
    const grant = proxy.grant({ peerAddress: POD_IP, allow: EMPTY_EGRESS_ALLOW, onDecision: () => undefined });
    try {
      const url = new URL(grant.proxyUrl('http://10.1.2.3:8091'));
      expect({ user: url.username, password: url.password, host: url.host }).toEqual({ user: 'ars', password: grant.credential, host: '10.1.2.3:8091' });
      expect(grant.credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      grant.close();
    }
  });
});
