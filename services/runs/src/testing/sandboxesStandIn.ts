// Test support (not built into dist/): a stand-in for the sandboxes service's one route runs calls,
// `POST /internal/runs/:runId/cancel` `{userId}` → 202 `{runId, state}`, speaking the kit's envelope.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export type StandInBehaviour = 'signalled' | 'not_started' | 'finished' | 'unreachable' | 'failing';

export interface SandboxesStandIn {
  url: string;
  /** Every cancel received, in order. */
  cancels: { runId: string; userId: string; caller: string | undefined }[];
  /** How the stand-in answers a user's cancels (default `signalled`). */
  behave(userId: string, behaviour: StandInBehaviour): void;
  close(): Promise<void>;
}

export async function startSandboxesStandIn(token: string): Promise<SandboxesStandIn> {
  const cancels: SandboxesStandIn['cancels'] = [];
  const behaviours = new Map<string, StandInBehaviour>();
  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const match = /^\/internal\/runs\/([^/]+)\/cancel$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match?.[1])
        return send(res, 404, { ok: false, error: { code: 'NOT_FOUND', message: `No route for ${req.method} ${req.url}` } });
      if (req.headers['x-internal-token'] !== token)
        return send(res, 401, { ok: false, error: { code: 'UNAUTHORIZED', message: 'Missing or invalid internal token' } });
      const runId = decodeURIComponent(match[1]);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { userId?: string };
      const userId = body.userId ?? '';
      const callerHeader = req.headers['x-caller-service'];
      cancels.push({ runId, userId, caller: typeof callerHeader === 'string' ? callerHeader : undefined });
      const behaviour = behaviours.get(userId) ?? 'signalled';
      if (behaviour === 'unreachable') return void req.socket.destroy();
      if (behaviour === 'failing') return send(res, 503, { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'sandboxes is overloaded' } });
      send(res, 202, { ok: true, data: { runId, state: behaviour } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    cancels,
    behave: (userId, behaviour) => void behaviours.set(userId, behaviour),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
