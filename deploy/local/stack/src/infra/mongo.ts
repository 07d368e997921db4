import { startChild, jsonLine, type ManagedChild } from '../childProcess.js';
import { fromRoot } from '../paths.js';
import { claimPort, reservePort, type PortReservation } from '../ports.js';

export interface LocalMongo {
  url: string;
  /** The server process of the moment (a new one after `start()`). */
  readonly child: ManagedChild;
  /** Stops the server (its data stays in `dbpath` when one was given). Twice is fine. */
  stop(): Promise<void>;
  /**
   * Starts it again after `stop()`, on the same port with the same `dbpath`, so clients reconnect to
   * the same URL and find their data (an outage, for tests). A no-op while it runs.
   */
  start(): Promise<void>;
}

/** The project's MongoDB-wire development server as its own process; `dbpath` keeps data across restarts. */
export async function startLocalMongo(options: { dbpath?: string; output?: (line: string) => void } = {}): Promise<LocalMongo> {
  // Reserved while it runs (see ports.ts), released once it has stopped.
  let reservation: PortReservation | undefined = await reservePort();
  const port = reservation.port;
  const args = [fromRoot('deploy/local/mongo-dev/dist/main.js'), '--port', String(port)];
  if (options.dbpath) args.push('--dbpath', options.dbpath);
  const launch = async (): Promise<{ child: ManagedChild; url: string }> => {
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
    return { child, url };
  };
  let current = await launch();
  return {
    url: current.url,
    get child() {
      return current.child;
    },
    stop: async () => {
      await current.child.stop(10_000);
      await reservation?.release();
      reservation = undefined;
    },
    async start() {
      if (current.child.isRunning()) return;
      // The same port again, so clients reconnect to the URL they have.
      reservation = await claimPort(port);
      if (!reservation) throw new Error(`mongo-dev cannot start again: port ${port} was taken while it was stopped`);
      current = await launch();
    },
  };
}
