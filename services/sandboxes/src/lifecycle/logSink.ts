// A log that grows while a command runs: sanitized and capped in memory (SandboxLog), written to the
// store at most every `logFlushMs`, so readers see it while it grows and the store is not hammered.
import { SandboxLog } from '../domain/sandboxLog.js';
import type { LogName } from '../store/sandboxLogs.js';
import type { LifecycleDeps } from './deps.js';

export interface LogSink {
  append(chunk: Buffer | string): void;
  /** Writes what is pending now and stops the timer. */
  close(): Promise<void>;
}

export function logSink(deps: LifecycleDeps, sandbox: { recordId: string; userId: string }, name: LogName, extraSecrets: readonly string[] = []): LogSink {
  const log = new SandboxLog({ capBytes: deps.settings.logCapBytes, secrets: [...deps.settings.secrets, ...extraSecrets] });
  let dirty = true;
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (!dirty) return writing;
    dirty = false;
    const text = log.text();
    writing = writing
      .then(() => deps.logs.write(sandbox.recordId, sandbox.userId, name, text))
      .catch((error: unknown) => deps.logger.warn({ err: error, sandbox_record_id: sandbox.recordId, log: name }, 'sandbox log not written'));
    return writing;
  };
  const timer = setInterval(() => void flush(), deps.settings.logFlushMs);
  timer.unref();
  void flush();
  return {
    append(chunk) {
      log.append(chunk);
      dirty = true;
    },
    async close() {
      clearInterval(timer);
      dirty = true;
      await flush();
    },
  };
}
