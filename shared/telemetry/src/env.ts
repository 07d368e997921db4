import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { startTelemetry, type Telemetry } from './telemetry.js';

/**
 * The service name for a process started as `node --import @ars/telemetry/register <main>`:
 * `OTEL_SERVICE_NAME` when set, else the name of the package holding the entry script (`@ars/runs` → `runs`).
 */
export function serviceNameFromEnvironment(env: NodeJS.ProcessEnv = process.env, entry: string | undefined = process.argv[1]): string {
  if (env.OTEL_SERVICE_NAME) return env.OTEL_SERVICE_NAME;
  let dir = entry ? dirname(resolve(entry)) : process.cwd();
  for (let depth = 0; depth < 6; depth += 1) {
    try {
      const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (name) return name.replace(/^@ars\//, '');
    } catch {
      // no package.json here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return 'unknown_service';
}

/** Starts telemetry from `OTEL_EXPORTER_OTLP_ENDPOINT` (off when unset). */
export function startTelemetryFromEnvironment(env: NodeJS.ProcessEnv = process.env): Telemetry {
  return startTelemetry({ serviceName: serviceNameFromEnvironment(env), otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined });
}
