import { request } from 'node:http';
import { existsSync } from 'node:fs';

/** True when a Docker engine answers `/_ping` (testcontainers needs one); false on this project's usual machines. */
export async function dockerEngineReachable(timeoutMs = 1_000): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  if (host && !host.startsWith('unix://')) return true; // a remote engine was named explicitly: let testcontainers try it
  const socketPath = host ? host.slice('unix://'.length) : '/var/run/docker.sock';
  if (!existsSync(socketPath)) return false;
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
