import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { SERVICE_NAMES, type ServiceName } from './services.js';
import type { Stack } from './stack.js';

/** What a running `npm start` tells local tools (the admin command) about itself: `.stack/stack.json`. */
export interface StackFile {
  baseUrl: string;
  /** Each service's URL (a restarted service keeps its own). */
  services: Record<ServiceName, string>;
  /** Each service's metrics endpoint (`http://127.0.0.1:<METRICS_PORT>/metrics`); the service URLs do not serve `/metrics`. */
  metrics: Partial<Record<ServiceName, string>>;
  /** The stack's Kafka bootstrap brokers (`host:port`), for tools that talk to the bus (re-drive). */
  kafkaBrokers: string[];
  /** The services' internal token, for the admin command's internal routes (disable-user): the file is readable by its owner only. */
  internalToken: string;
  pid: number;
  startedAt: string;
}

const FILE = 'stack.json';

export function writeStackFile(dir: string, stack: Pick<Stack, 'baseUrl' | 'services' | 'infrastructure' | 'internalToken'>): void {
  mkdirSync(dir, { recursive: true });
  const services = Object.fromEntries(SERVICE_NAMES.map((name) => [name, stack.services[name].url])) as Record<ServiceName, string>;
  const metrics: Partial<Record<ServiceName, string>> = {};
  for (const name of SERVICE_NAMES) {
    const url = stack.services[name].metricsUrl;
    if (url) metrics[name] = url;
  }
  const content: StackFile = {
    baseUrl: stack.baseUrl,
    services,
    metrics,
    kafkaBrokers: stack.infrastructure.kafkaBrokers,
    internalToken: stack.internalToken,
    pid: process.pid,
    startedAt: new Date().toISOString(),
  };
  writeFileSync(join(dir, FILE), `${JSON.stringify(content)}\n`, { mode: 0o600 });
}

export function removeStackFile(dir: string): void {
  rmSync(join(dir, FILE), { force: true });
}

/** The running local stack's file, or undefined when none is running (a stale file is ignored). */
export function readStackFile(dir = join(repoRoot, '.stack')): StackFile | undefined {
  try {
    const content = JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as StackFile;
    process.kill(content.pid, 0);
    return content;
  } catch {
    return undefined;
  }
}
