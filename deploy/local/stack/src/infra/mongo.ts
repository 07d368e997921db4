import { startChild, jsonLine, type ManagedChild } from '../childProcess.js';
import { fromRoot } from '../paths.js';
import { reservePort } from '../ports.js';

export interface LocalMongo {
  url: string;
  child: ManagedChild;
  stop(): Promise<void>;
}

/** The project's MongoDB-wire development server as its own process; `dbpath` keeps data across restarts. */
export async function startLocalMongo(options: { dbpath?: string; output?: (line: string) => void } = {}): Promise<LocalMongo> {
  // Reserved while it runs (see ports.ts), released once it has stopped.
  const reservation = await reservePort();
  const port = reservation.port;
  const args = [fromRoot('deploy/local/mongo-dev/dist/main.js'), '--port', String(port)];
  if (options.dbpath) args.push('--dbpath', options.dbpath);
  const child = startChild({
    name: 'mongo-dev',
    command: process.execPath,
    args,
    env: { ...process.env, ARS_EXIT_WITH_PARENT: 'stdin' },
    output: options.output,
  });
  const url = await child.waitForLine((line) => {
    const message = jsonLine(line);
    return message?.mongoDev === 'listening' && typeof message.url === 'string' ? message.url : undefined;
  }, 30_000);
  return { url, child, stop: () => child.stop(10_000).finally(() => reservation.release()) };
}
