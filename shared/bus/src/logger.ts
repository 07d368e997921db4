import { logLevel, type logCreator } from 'kafkajs';

type LogFn = {
  (message: string): void;
  (object: Record<string, unknown>, message?: string): void;
};

/**
 * The logger the bus writes to: a structural subset of pino's `Logger` (and of `@ars/logger`), so
 * either can be passed without an adapter.
 */
export interface BusLogger {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  debug: LogFn;
  child(bindings: Record<string, unknown>): BusLogger;
}

/** A logger that drops everything. */
export const silentLogger: BusLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  child: () => silentLogger,
};

/**
 * Routes kafkajs' own logs into `logger` (never the console). kafkajs logs reconnects and
 * rebalances at ERROR/WARN that are routine for a consumer group; they keep their level.
 */
export function kafkajsLogCreator(logger: BusLogger): logCreator {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = entry as { message: string; [k: string]: unknown };
      const fields: Record<string, unknown> = { namespace, ...extra };
      switch (level) {
        case logLevel.ERROR:
          log.error(fields, message);
          break;
        case logLevel.WARN:
          log.warn(fields, message);
          break;
        case logLevel.INFO:
          log.info(fields, message);
          break;
        default:
          log.debug(fields, message);
      }
    };
}

/** Error fields for a log line (`err`, serialized with its stack by pino). */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { err: error };
  return { err: { message: String(error) } };
}
