// A service in a process of its own shuts down on SIGTERM/SIGINT (a second signal forces the exit),
// when the local stack that started it dies (its stdin closes), and on an unhandled rejection or
// an uncaught exception; then the process exits with the shutdown's code.
import type { Logger } from '@ars/logger';
import type { ServiceShutdown } from './shutdown.js';

/** The shutdown deadline of a service whose parent (the local stack) died without stopping it. */
export const ORPHANED_SHUTDOWN_TIMEOUT_MS = 3_000;

export interface ProcessExit {
  logger: Logger;
  exit: (code: number) => void;
  /** SHUTDOWN_TIMEOUT_MS: an orphaned service takes the shorter of it and ORPHANED_SHUTDOWN_TIMEOUT_MS. */
  shutdownTimeoutMs: number;
}

export function shutDownOnProcessEvents(shutdown: ServiceShutdown, { logger, exit, shutdownTimeoutMs }: ProcessExit): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    if (shutdown.started) {
      logger.warn({ signal }, 'second signal; forcing exit');
      exit(1);
      return;
    }
    void shutdown.run(signal).then((code) => exit(code));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Started by the local stack in a process group of its own: if the stack dies without stopping
  // us (SIGKILL), the pipe it holds on our stdin closes, and we stop instead of living on orphaned.
  // Promptly: the databases the stack started died with it, so a step that still needs them would
  // only wait out the whole SHUTDOWN_TIMEOUT_MS (the driver's server selection) for nothing.
  if (process.env.ARS_EXIT_WITH_PARENT === 'stdin' && !process.stdin.isTTY) {
    process.stdin.on('end', () => {
      if (!shutdown.started) void shutdown.run('parent exited', 0, Math.min(shutdownTimeoutMs, ORPHANED_SHUTDOWN_TIMEOUT_MS)).then((code) => exit(code));
    });
    process.stdin.resume();
  }
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
    void shutdown.run('unhandledRejection', 1).then((code) => exit(code));
  });
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception');
    void shutdown.run('uncaughtException', 1).then(() => exit(1));
  });
}
