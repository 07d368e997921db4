// Test support (not built into dist/): the catalog run in-process against the suite's MongoDB and
// Kafka, its own database per harness, a temp dir for the local source host, and its log lines kept.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DevInstallation } from '@ars/contract';
import { createLogger } from '@ars/logger';
import { freePort, internalCaller, testInfrastructure, type InternalCall } from '@ars/testenv';
import { startCatalog, type RunningCatalog } from '../catalog.js';

export interface CatalogHarness {
  url: string;
  token: string;
  sourceHostDir: string;
  dbName: string;
  service: RunningCatalog;
  /** Every log line the service wrote, raw JSON. */
  logLines: string[];
  /** An internal route with the harness's token, as `catalog-test`. */
  call: InternalCall;
  /** A fresh tenant: a user id no other test uses. */
  newUser(): string;
  /** `POST /internal/dev/installations` for the user; the installation and its repositories. */
  devInstallation(userId: string, repoCount?: number): Promise<DevInstallation>;
  stop(): Promise<void>;
}

/** The dev installation answer is the contract package's shape. */
export type { DevInstallation };

export async function startCatalogHarness(extraEnv: Record<string, string> = {}): Promise<CatalogHarness> {
  const infra = testInfrastructure();
  const token = randomBytes(24).toString('base64url');
  const sourceHostDir = mkdtempSync(join(tmpdir(), 'ars-catalog-test-'));
  const dbName = `catalog_test_${randomBytes(6).toString('hex')}`;
  const logLines: string[] = [];
  const logger = createLogger({ service: 'catalog', level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
  const service = await startCatalog({
    handleSignals: false,
    exit: () => undefined,
    logger,
    env: {
      PORT: String(await freePort()),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      INTERNAL_TOKEN: token,
      SOURCE_HOST_DIR: sourceHostDir,
      CATALOG_SECRETS_KEY: randomBytes(32).toString('base64'),
      ...extraEnv,
    },
  });

  const call = internalCaller({ url: service.url, token, caller: 'catalog-test' });

  return {
    url: service.url,
    token,
    sourceHostDir,
    dbName,
    service,
    logLines,
    call,
    newUser: () => `user-${randomUUID()}`,
    devInstallation: async (userId, repoCount) => {
      const answer = await call<DevInstallation>('POST', '/internal/dev/installations', repoCount === undefined ? { userId } : { userId, repoCount });
      if (answer.status !== 201) throw new Error(`dev installation failed: ${answer.status} ${answer.text}`);
      return answer.data;
    },
    stop: async () => {
      await service.shutdown('test over');
      rmSync(sourceHostDir, { recursive: true, force: true });
    },
  };
}
