export {
  registry,
  SERVICE_LABEL,
  startProcessMetrics,
  counter,
  gauge,
  histogram,
  metricsText,
  secondsSince,
  DURATION_BUCKETS,
  RUN_DURATION_BUCKETS,
} from './registry.js';
export { sampledEvery } from './sampling.js';
export { parseMetricsText, sumOf, familyNames } from './parse.js';
export type { Sample, Scrape } from './parse.js';
export type { Counter, Gauge, Histogram } from 'prom-client';
