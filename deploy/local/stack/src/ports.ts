import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Ports for the local stack's processes and for tests, so that stacks and test suites running side
 * by side on one machine never get the same port:
 * - chosen outside the kernel's ephemeral range (`ip_local_port_range`), from which port-0 listeners
 *   and every outgoing connection's source port are drawn: nothing the kernel hands out takes them;
 * - reserved machine-wide by an abstract Unix socket `\0ars-port:<port>` held for as long as the port
 *   is needed: binding it is exclusive, and the kernel releases it when its holder dies, so a crashed
 *   holder leaves no stale lock behind (no lock file, no pid to check, no take-over race);
 * - free when handed out (a probe bind on the host succeeds), so a foreign listener is skipped.
 * What is left (a process that takes the port without asking, between the probe and the service's own
 * bind) is caught by the service itself (EADDRINUSE at start) and by the stack's identity check.
 */

export interface PortRange {
  low: number;
  high: number;
}

export interface PortReservation {
  readonly port: number;
  /** Gives the port back (idempotent). */
  release(): Promise<void>;
}

const EPHEMERAL_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
/** Linux's default ephemeral range, when the kernel's cannot be read. */
const DEFAULT_EPHEMERAL: PortRange = { low: 32768, high: 60999 };
/** Below this, the well-known and commonly configured ports (8080, 9092 …). */
const LOWEST = 20_000;
/** A range narrower than this is too crowded to pick from at random. */
const MIN_WIDTH = 1_000;
const ATTEMPTS = 200;

/** The kernel's ephemeral port range. */
export function ephemeralRange(file = EPHEMERAL_RANGE_FILE): PortRange {
  try {
    const [low, high] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high) && low <= high) return { low, high };
  } catch {
    // not Linux, or /proc not mounted
  }
  return DEFAULT_EPHEMERAL;
}

/** Where reserved ports are chosen: below the ephemeral range (from 20000), else above it. */
export function reservableRange(ephemeral: PortRange = ephemeralRange()): PortRange {
  if (ephemeral.low - 1 - LOWEST >= MIN_WIDTH) return { low: LOWEST, high: ephemeral.low - 1 };
  if (65535 - (ephemeral.high + 1) >= MIN_WIDTH) return { low: ephemeral.high + 1, high: 65535 };
  // The ephemeral range covers almost everything: the reservation and the identity check still hold.
  return { low: LOWEST, high: 65535 };
}

function listen(server: Server, options: { path: string } | { host: string; port: number; exclusive: boolean }): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL') resolve(false);
      else reject(error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve(true);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(options);
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Reserves `port` if no one else holds it and it can be bound on `host` now; undefined otherwise.
 * The reservation does not keep the process alive.
 */
export async function claimPort(port: number, host = '127.0.0.1'): Promise<PortReservation | undefined> {
  const lock = createServer();
  if (!(await listen(lock, { path: `\0ars-port:${port}` }))) return undefined;
  lock.unref();
  const probe = createServer();
  const free = await listen(probe, { host, port, exclusive: true });
  if (free) await close(probe);
  if (!free) {
    await close(lock);
    return undefined;
  }
  let released: Promise<void> | undefined;
  return { port, release: () => (released ??= close(lock)) };
}

/** A port of `reservableRange()`, reserved for the caller until it releases it or exits. */
export async function reservePort(host = '127.0.0.1', range: PortRange = reservableRange()): Promise<PortReservation> {
  const width = range.high - range.low + 1;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const reservation = await claimPort(range.low + Math.floor(Math.random() * width), host);
    if (reservation) return reservation;
  }
  throw new Error(`no free port in ${range.low}–${range.high} after ${ATTEMPTS} attempts`);
}

/**
 * A port reserved for this process until it exits (tests, benchmarks: a server started on it a moment
 * later). Never one another stack or suite on this machine holds, never in the ephemeral range.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return (await reservePort(host)).port;
}
