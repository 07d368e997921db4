// Test support, not production: a stand-in for a host on the internet, which these machines cannot
// reach. An HTTP server runs in an anonymous network namespace (`unshare --net`, so nothing is named
// in /run/netns for parallel workers or clones to collide on), joined to ours by a veth pair on a
// /30 of the documentation ranges. Traffic to it leaves our namespace through a real interface, as
// the egress proxy's would, and reaches nothing else. Needs root (creating interfaces).
//
// The server answers `hello from test host` to GET / and, to any other request, its method and path;
// every answer says which Host header arrived (`x-seen-host`) and whether a Proxy-Authorization
// header did (`x-seen-proxy-authorization: present|absent`).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';

export interface NetnsTestHost {
  /** The server's address, inside the namespace. */
  address: string;
  /** Our end of the veth pair: an address of this machine (the egress proxy must refuse it). */
  hostSideAddress: string;
  port: number;
  close(): Promise<void>;
}

export const TEST_HOST_GREETING = 'hello from test host';

const run = promisify(execFile);

const SERVER_SCRIPT = `
const { createServer } = require('node:http');
const server = createServer((req, res) => {
  const body = req.url === '/' ? ${JSON.stringify(`${TEST_HOST_GREETING}\n`)} : req.method + ' ' + req.url + '\\n';
  res.writeHead(200, {
    'content-type': 'text/plain',
    'content-length': Buffer.byteLength(body),
    'x-seen-host': req.headers.host ?? '',
    'x-seen-proxy-authorization': req.headers['proxy-authorization'] === undefined ? 'absent' : 'present',
  });
  res.end(body);
});
server.listen(Number(process.env.TEST_HOST_PORT), '0.0.0.0', () => process.stdout.write('ready\\n'));
// Our test process gone (its pipe closed): so is the namespace, and with it the veth pair.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
`;

/** The /30s of 198.51.100.0/24 and 203.0.113.0/24 (192.0.2.0/24 is often a real lab network). */
const SUBNETS = [0xc6336400, 0xcb007100].flatMap((base) => Array.from({ length: 64 }, (_, index) => base + index * 4));

let counter = 0;

/** Starts a test host on `port` (any port: the namespace is its own). Close it in afterAll. */
export async function startNetnsTestHost(options: { port: number }): Promise<NetnsTestHost> {
  if (process.getuid?.() !== 0) throw new Error('startNetnsTestHost needs root (it creates network interfaces)');
  const sequence = counter++;
  // Unique per process (pid) and call (counter), within the 15 characters of an interface name.
  const suffix = `${process.pid.toString(36)}${sequence.toString(36)}`;
  const hostVeth = `eg${suffix}h`;
  const peerVeth = `eg${suffix}p`;
  const subnet = freeSubnet(Number(process.env.JEST_WORKER_ID ?? '1'), sequence);
  const hostSideAddress = ipv4(subnet + 1);
  const address = ipv4(subnet + 2);

  const server = spawn('unshare', ['--net', process.execPath, '-e', SERVER_SCRIPT], {
    env: { ...process.env, TEST_HOST_PORT: String(options.port) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const close = async (): Promise<void> => {
    await stop(server);
    // Gone with the namespace already, unless setting up failed before the peer moved in.
    await run('ip', ['link', 'del', hostVeth]).catch(() => undefined);
  };
  try {
    await ready(server);
    const pid = String(server.pid);
    await run('ip', ['link', 'add', hostVeth, 'type', 'veth', 'peer', 'name', peerVeth]);
    await run('ip', ['link', 'set', peerVeth, 'netns', pid]);
    await run('ip', ['addr', 'add', `${hostSideAddress}/30`, 'dev', hostVeth]);
    await run('ip', ['link', 'set', hostVeth, 'up']);
    const inside = (...args: string[]) => run('nsenter', [`--net=/proc/${pid}/ns/net`, 'ip', ...args]);
    await inside('addr', 'add', `${address}/30`, 'dev', peerVeth);
    await inside('link', 'set', peerVeth, 'up');
    await inside('link', 'set', 'lo', 'up');
    await reachable(address, options.port);
  } catch (error) {
    await close();
    throw error;
  }
  return { address, hostSideAddress, port: options.port, close };
}

/** A /30 from the worker's share, skipping any that overlaps a network this machine is on. */
function freeSubnet(workerId: number, sequence: number): number {
  const taken = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === 'IPv4' && entry.cidr !== null)
    .map((entry) => {
      const prefix = Number(entry.cidr?.split('/')[1] ?? 32);
      const size = 2 ** (32 - prefix);
      const start = Math.floor(ipv4Number(entry.address) / size) * size;
      return { start, end: start + size };
    });
  const first = ((Math.max(1, workerId) - 1) * 8 + sequence) % SUBNETS.length;
  for (let offset = 0; offset < SUBNETS.length; offset += 1) {
    const subnet = SUBNETS[(first + offset) % SUBNETS.length] ?? 0;
    if (!taken.some((range) => subnet < range.end && subnet + 4 > range.start)) return subnet;
  }
  throw new Error('no free /30 in 198.51.100.0/24 or 203.0.113.0/24');
}

function ready(server: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the test host did not start within 10 s')), 10_000);
    let output = '';
    server.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!output.includes('ready\n')) return;
      clearTimeout(timer);
      resolve();
    });
    server.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    server.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the test host exited (${code}) before it was ready`));
    });
  });
}

/** Our side sees the server (the link is up and the route in place) within 5 s. */
async function reachable(address: string, port: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: address, port });
      socket.setTimeout(500, () => socket.destroy());
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('close', () => resolve(false));
    });
    if (connected) return;
    if (Date.now() > deadline) throw new Error(`the test host at ${address}:${port} is not reachable`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGKILL');
  await exited;
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

function ipv4(number: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(number / 2 ** shift) % 256).join('.');
}
