// Test helper for the tests that start the bundled real CLIs.
import { createServer } from 'node:net';

/** A loopback port nothing listens on: one the kernel just handed out, closed again. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('the server has no port');
  return address.port;
}
