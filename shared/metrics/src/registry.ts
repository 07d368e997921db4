import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

/**
 * The process's one registry: every metric of a service (its HTTP, its consumers, its domain) and
 * Node's process metrics land here, and `/metrics` answers it whole. Not prom-client's global
 * `register`, so that a dependency registering there cannot add series to our answer.
 */
export const registry = new Registry();

/** The label every sample of a process carries: the service name (see README, "Labels"). */
export const SERVICE_LABEL = 'ars_service';

let processMetricsStarted = false;

/**
 * Names the process's service on every sample (`ars_service="runs"`) and starts Node's process
 * metrics (`process_*`, `nodejs_*`: CPU, memory, event-loop lag, GC). Once per process; a second
 * call only renames (one service per process: a test running several in-process sees the last).
 */
export function startProcessMetrics(service: string): void {
  registry.setDefaultLabels({ [SERVICE_LABEL]: service });
  if (processMetricsStarted) return;
  processMetricsStarted = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_PRECISION_MS });
}

/**
 * How often the event-loop lag (`nodejs_eventloop_lag_*`) is sampled. prom-client's 10 ms is a timer
 * waking every service a hundred times a second: about a third of an idle service's CPU (a whole local
 * stack idled at 8.2 CPU-s a minute with it, 6.1 with 1 s). A stall long enough to matter to an API
 * (tens of milliseconds and up) still shows at 100 ms.
 */
export const EVENT_LOOP_MONITORING_PRECISION_MS = 100;

interface MetricSpec<L extends string> {
  /** `ars_<area>_<what>_<unit>` — `_total` for counters, `_seconds` for durations. */
  name: string;
  help: string;
  /** Bounded label names: never ids, names a user chose, or text (README, "Labels"). */
  labelNames: readonly L[];
}

/**
 * The metric of this name, made on first use. A module that defines its metrics at load time and
 * the same module loaded twice (jest's module registry, two apps in one test process) share one
 * series set instead of failing on a duplicate registration.
 */
function existing<M extends Metric>(name: string, kind: new (...args: never[]) => M): M | undefined {
  const found = registry.getSingleMetric(name);
  if (found === undefined) return undefined;
  if (!(found instanceof kind)) throw new Error(`metric ${name} is registered already with another type`);
  return found;
}

export function counter<L extends string>(spec: MetricSpec<L>): Counter<L> {
  return existing<Counter<L>>(spec.name, Counter) ?? new Counter<L>({ ...spec, labelNames: [...spec.labelNames], registers: [registry] });
}

export function histogram<L extends string>(spec: MetricSpec<L> & { buckets?: readonly number[] }): Histogram<L> {
  const { buckets, ...rest } = spec;
  return (
    existing<Histogram<L>>(spec.name, Histogram) ??
    new Histogram<L>({ ...rest, labelNames: [...rest.labelNames], buckets: [...(buckets ?? DURATION_BUCKETS)], registers: [registry] })
  );
}

/**
 * A gauge; with `collect`, its value is set at scrape time (wrap slow reads in `sampledEvery` so a
 * burst of scrapes costs one read).
 */
export function gauge<L extends string>(spec: MetricSpec<L> & { collect?: (gauge: Gauge<L>) => Promise<void> | void }): Gauge<L> {
  const { collect, ...rest } = spec;
  const found = existing<Gauge<L>>(spec.name, Gauge);
  if (found) return found;
  return new Gauge<L>({
    ...rest,
    labelNames: [...rest.labelNames],
    registers: [registry],
    ...(collect
      ? {
          async collect(this: Gauge<L>) {
            await collect(this);
          },
        }
      : {}),
  });
}

/** Request and handler durations: 5 ms to 30 s (a run's HTTP answers are fast; a consumer's handler may clone a repository). */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Durations of whole runs and automation runs: 1 s to 2 h. */
export const RUN_DURATION_BUCKETS: readonly number[] = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];

/** The answer of `GET /metrics`: the Prometheus text format (0.0.4) of the registry. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** Seconds since `start` (a `Date` or epoch milliseconds), never negative (clocks of two hosts). */
export function secondsSince(start: Date | number, now: number = Date.now()): number {
  const from = typeof start === 'number' ? start : start.getTime();
  return Math.max(0, (now - from) / 1000);
}
