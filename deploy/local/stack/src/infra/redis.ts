import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, type ManagedChild } from '../childProcess.js';
import { freePort } from '../ports.js';

export interface LocalRedis {
  url: string;
  child: ManagedChild;
  stop(): Promise<void>;
}

/** Debian's redis-server on a free loopback port, nothing persisted: rate-limit data may be lost. */
export async function startLocalRedis(output?: (line: string) => void): Promise<LocalRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'ars-redis-'));
  const child = startChild({
    name: 'redis',
    command: 'redis-server',
    args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    output,
  });
  await child.waitForLine((line) => (line.includes('Ready to accept connections') ? true : undefined), 15_000);
  return { url: `redis://127.0.0.1:${port}`, child, stop: () => child.stop(5_000) };
}
