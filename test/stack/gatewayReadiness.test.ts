import { startStack, type Stack } from '@ars/stack';
import { testInfrastructure } from '@ars/testenv';

let stack: Stack;
beforeAll(async () => {
  const infra = testInfrastructure();
  stack = await startStack({
    gatewayPort: 0,
    kafkaBrokers: infra.kafkaBrokers.join(','),
    mongoUrl: infra.mongoUrl,
    redisUrl: infra.redisUrl,
    logLevel: 'warn',
    output: () => undefined,
  });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

async function readiness(): Promise<{ status: number; body: { ok: boolean; error?: { code: string; message: string } } }> {
  const response = await fetch(`${stack.baseUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { ok: boolean; error?: { code: string; message: string } } };
}

describe('GET {base_url}/readyz answers 200 only when every service is ready', () => {
  test('200 with every service up', async () => {
    expect((await readiness()).status).toBe(200);
  });

  test('503 naming the service while one is down, 200 again once it is back', async () => {
    await stack.services.runs.stop();
    const down = await readiness();
    expect(down.status).toBe(503);
    expect(down.body.ok).toBe(false);
    expect(down.body.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(down.body.error?.message).toContain('runs');

    await stack.services.runs.start();
    expect((await readiness()).status).toBe(200);
  }, 60_000);
});
