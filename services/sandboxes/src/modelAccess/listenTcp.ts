// A server on a TCP port (0: any free one) and address (default every address), and the
// `http://host:port` it is reached at as bound: the model gateway's and the egress proxy's shared
// listeners for Pods. A port in use rejects (the start-up stops).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listenTcp(server: Server, listen: { port: number; host?: string }): Promise<{ address: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: listen.port, ...(listen.host !== undefined ? { host: listen.host } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return { address: `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`, port: bound.port };
}
