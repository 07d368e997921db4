// The last step, whenever it comes (a signal, a failed start-up, a test): stop accepting requests,
// run the hooks in reverse order within the deadline, then close the bus, MongoDB, the metrics
// listener and telemetry. Each step's time is logged; a deadline overrun names the step under way.
import type { Bus } from '@ars/bus';
import type { RunningServer } from '@ars/http-app';
import type { Logger } from '@ars/logger';
import type { Mongo } from '@ars/mongo';
import type { Telemetry } from '@ars/telemetry';
import type { ShutdownBudget, ShutdownHook } from './definition.js';

/**
 * What the steps after the hooks (the bus, MongoDB, the metrics listener, telemetry) are kept of the
 * shutdown's time: a hook's budget ends this long before the deadline.
 */
export const SHUTDOWN_CLOSING_RESERVE_MS = 2_000;

/** What start-up opened so far: each is closed by its own step, the ones not opened are skipped. */
export interface OpenedResources {
  mongo?: Mongo;
  bus?: Bus;
  server?: RunningServer;
  metricsServer?: RunningServer;
  telemetry: Telemetry;
}

export interface ServiceShutdownSettings {
  logger: Logger;
  /** SHUTDOWN_TIMEOUT_MS: the default deadline. */
  timeoutMs: number;
  /** Called with 1 when the deadline passes; undefined in-process (tests), where nothing exits. */
  exitOnDeadline: ((code: number) => void) | undefined;
}

export class ServiceShutdown {
  readonly opened: OpenedResources;
  private readonly hooks: { name: string; hook: ShutdownHook }[] = [];
  private running: Promise<number> | undefined;

  constructor(
    telemetry: Telemetry,
    private readonly settings: ServiceShutdownSettings,
  ) {
    this.opened = { telemetry };
  }

  /** True once a shutdown began: start-up stops at its next step, readiness answers 503. */
  get started(): boolean {
    return this.running !== undefined;
  }

  /** Work to do after HTTP stops and before the bus and MongoDB close; run in reverse order. */
  onShutdown(hook: ShutdownHook, name = `hook ${this.hooks.length + 1}`): void {
    this.hooks.push({ name, hook });
  }

  /** Runs once (later calls answer the same promise); resolves with the exit code it chose. */
  run(reason = 'requested', exitCode = 0, timeoutMs = this.settings.timeoutMs): Promise<number> {
    this.running ??= this.steps(reason, exitCode, timeoutMs);
    return this.running;
  }

  private async steps(reason: string, exitCode: number, timeoutMs: number): Promise<number> {
    const { logger } = this.settings;
    const { opened } = this;
    // Stop accepting connections before saying so: whoever reads the line may rely on it.
    const httpClosed = opened.server ? opened.server.close() : Promise.resolve();
    httpClosed.catch(() => undefined);
    logger.info({ reason, timeout_ms: timeoutMs }, 'shutting down');
    const clock = new StepClock(logger, timeoutMs);
    const deadline = this.deadline(clock, timeoutMs);
    await clock.step('http', () => httpClosed);
    logger.info('http stopped');
    for (const { name, hook } of [...this.hooks].reverse()) await clock.step(name, () => hook(clock.budget));
    if (opened.bus) await clock.step('bus', () => opened.bus?.disconnect());
    if (opened.mongo) await clock.step('mongo', () => opened.mongo?.close());
    // Last of the listeners: the drain above can still be scraped.
    if (opened.metricsServer) await clock.step('metrics', () => opened.metricsServer?.close());
    await clock.step('telemetry', () => opened.telemetry.shutdown());
    clearTimeout(deadline);
    const code = clock.failed ? 1 : exitCode;
    logger.info({ code, steps_ms: clock.stepsMs }, 'stopped');
    return code;
  }

  private deadline(clock: StepClock, timeoutMs: number): NodeJS.Timeout {
    const exit = this.settings.exitOnDeadline;
    const timer = setTimeout(() => {
      this.settings.logger.error({ timeout_ms: timeoutMs, step: clock.underWay, steps_ms: clock.stepsMs }, 'shutdown timed out; forcing exit');
      exit?.(1);
    }, timeoutMs);
    // In a process we own, the deadline must fire even when nothing else keeps the event loop alive
    // (a hook awaiting a promise that never settles would otherwise let the process end silently).
    if (!exit) timer.unref();
    return timer;
  }
}

/** The shutdown's steps, timed one after another against one deadline. */
class StepClock {
  /** Each step's duration, in order: the deadline's line names what overran. */
  readonly stepsMs: Record<string, number> = {};
  underWay: string | undefined;
  failed = false;
  readonly budget: ShutdownBudget;

  constructor(
    private readonly logger: Logger,
    timeoutMs: number,
  ) {
    const deadlineAt = Date.now() + timeoutMs;
    // A short deadline (a test's) keeps a quarter of itself for the closing steps.
    const closingReserveMs = Math.min(SHUTDOWN_CLOSING_RESERVE_MS, timeoutMs / 4);
    this.budget = { remainingMs: () => Math.max(0, deadlineAt - Date.now() - closingReserveMs) };
  }

  /** A failing step is logged and the next one runs; the exit code becomes 1. */
  async step(name: string, fn: () => Promise<void> | void): Promise<void> {
    const startedAt = Date.now();
    this.underWay = name;
    try {
      await fn();
    } catch (error) {
      this.failed = true;
      this.logger.error({ err: error, step: name }, 'shutdown step failed');
    } finally {
      this.stepsMs[name] = Date.now() - startedAt;
      this.underWay = undefined;
    }
  }
}
