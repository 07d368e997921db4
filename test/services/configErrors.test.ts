import { spawnSync } from 'node:child_process';
import { fromRoot, SERVICE_NAMES } from '@ars/stack';

function startWith(service: string, env: NodeJS.ProcessEnv): { status: number | null; stderr: string; stdout: string } {
  const result = spawnSync(process.execPath, [fromRoot(`services/${service}/dist/main.js`)], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

const validEnv: NodeJS.ProcessEnv = {
  MONGO_URL: 'mongodb://127.0.0.1:1',
  KAFKA_BROKERS: '127.0.0.1:1',
  CATALOG_URL: 'http://127.0.0.1:1',
  RUNS_URL: 'http://127.0.0.1:1',
  SANDBOXES_URL: 'http://127.0.0.1:1',
  AUTOMATIONS_ENGINE_URL: 'http://127.0.0.1:1',
  PR_REVIEW_URL: 'http://127.0.0.1:1',
  MCP_REGISTRY_URL: 'http://127.0.0.1:1',
};

describe('a bad or missing configuration value stops the process with one clear line naming the variable', () => {
  test.each(SERVICE_NAMES)('%s: PORT=abc exits 1 with one line naming PORT', (service) => {
    const result = startWith(service, { ...validEnv, PORT: 'abc' });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('PORT');
    expect(lines[0]).toContain('abc');
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/); // no stack trace
  });

  test('a missing required variable is named', () => {
    const { MONGO_URL: _omitted, ...withoutMongo } = validEnv;
    const result = startWith('runs', withoutMongo);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('MONGO_URL');
  });

  test('the gateway names a malformed peer URL', () => {
    const result = startWith('gateway', { ...validEnv, RUNS_URL: 'not a url' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('RUNS_URL');
  });
});
