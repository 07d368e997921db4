import { AppError } from '@ars/errors';
import { createHttpClient, type HttpClient } from '@ars/http-client';
import { createLogger } from '@ars/logger';
import { createSandboxesClient, type SandboxesClient } from './client.js';
import { startSandboxesKit, type SandboxesKit } from './testing/sandboxesKit.js';

let kit: SandboxesKit;
let http: HttpClient;
let sandboxes: SandboxesClient;
beforeAll(async () => {
  kit = await startSandboxesKit();
  const service = await kit.startService();
  http = createHttpClient({
    baseUrl: service.url,
    caller: 'runs',
    internalToken: kit.token,
    logger: createLogger({ service: 'sandboxes-client-test', level: 'silent' }),
    peer: 'sandboxes',
  });
  sandboxes = createSandboxesClient(http);
});
afterAll(async () => {
  await http?.close();
  await kit?.stop();
});

describe('the sandboxes client calls the real cancel route and answers its typed shape', () => {
  test('cancelRun before the request arrives is {runId, state: not_started}', async () => {
    const userId = kit.catalog.newUser();
    const runId = `run_client_${Date.now()}`;
    expect(await sandboxes.cancelRun(runId, userId)).toEqual({ runId, state: 'not_started' });
  });
});

describe("the sandboxes client maps an error answer to the one error type (AppError with the service's code)", () => {
  test("cancelRun of another user's run is AppError NOT_FOUND", async () => {
    const runId = `run_client_other_${Date.now()}`;
    await sandboxes.cancelRun(runId, kit.catalog.newUser());
    const error = await sandboxes.cancelRun(runId, kit.catalog.newUser()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
