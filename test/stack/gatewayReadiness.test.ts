import { ownSystem } from '@ars/testenv';

// A system of its own, never the run's Kafka and MongoDB: its services join the default consumer
// groups (`sandboxes`, `runs`), so on the run's Kafka its sandboxes took other suites' run requests
// and failed them ("the repository was not found for this user").
const system = ownSystem('it stops a service to see the gateway’s readiness fail');

async function readiness(): Promise<{ status: number; body: { ok: boolean; error?: { code: string; message: string } } }> {
  const response = await fetch(`${system().baseUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { ok: boolean; error?: { code: string; message: string } } };
}

describe('GET {base_url}/readyz answers 200 only when every service is ready', () => {
  test('200 with every service up', async () => {
    expect((await readiness()).status).toBe(200);
  });

  test('503 naming the service while one is down, 200 again once it is back', async () => {
    await system().stack.services.runs.stop();
    const down = await readiness();
    expect(down.status).toBe(503);
    expect(down.body.ok).toBe(false);
    expect(down.body.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(down.body.error?.message).toContain('runs');

    await system().stack.services.runs.start();
    expect((await readiness()).status).toBe(200);
  }, 60_000);
});
