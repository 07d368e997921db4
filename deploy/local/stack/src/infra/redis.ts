import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, type ManagedChild } from '../childProcess.js';
import { reservePort } from '../ports.js';

/**
 * redis-server under a small shell that stops it on SIGTERM/SIGINT and also when its stdin closes:
 * if the stack dies without stopping it (SIGKILL), the pipe the stack held closes and Redis goes too.
 */
const STOP_WITH_PARENT =
  'redis-server "$@" & child=$!; trap \'kill -TERM $child; wait $child; exit 0\' TERM INT; ' + 'while read -r _; do :; done; kill -TERM $child; wait $child';

export interface LocalRedis {
  url: string;
  child: ManagedChild;
  stop(): Promise<void>;
}

/** Debian's redis-server on a reserved loopback port (see ports.ts), nothing persisted: rate-limit data may be lost. */
export async function startLocalRedis(output?: (line: string) => void): Promise<LocalRedis> {
  const reservation = await reservePort();
  const port = reservation.port;
  const dir = mkdtempSync(join(tmpdir(), 'ars-redis-'));
  const child = startChild({
    name: 'redis',
    command: 'sh',
    args: ['-c', STOP_WITH_PARENT, 'redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    output,
  });
  await child.waitForLine((line) => (line.includes('Ready to accept connections') ? true : undefined), 15_000);
  const stop = () =>
    child.stop(5_000).finally(() => {
      reservation.release();
      // Nothing is persisted there; one folder per stack would otherwise pile up in /tmp.
      rmSync(dir, { recursive: true, force: true });
    });
  return { url: `redis://127.0.0.1:${port}`, child, stop };
}
