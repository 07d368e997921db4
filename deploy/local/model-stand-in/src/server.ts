// The model stand-in's HTTP server: the two provider APIs the bundled CLIs speak, and a health
// check. Stateless: an answer depends on its request alone, nothing of one request is kept for
// another, and there is no route that shows what was asked (a sandbox may reach this server, and
// must learn nothing of another run through it).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isRecord, readMessagesRequest, readResponsesRequest } from './conversation.js';
import { anthropicError, answerOf as messagesAnswer, streamMessage, wholeMessage } from './messagesApi.js';
import { answerOf as responsesAnswer, openaiError, streamResponse, wholeResponse } from './responsesApi.js';
import { dropsConnection } from './script.js';

export interface ModelStandInOptions {
  /** 0 (the default): any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** One line per request (method, path, status, milliseconds); never a request's content. */
  log?: (line: string) => void;
}

export interface ModelStandIn {
  /** `http://host:port`: the Anthropic base URL (`ANTHROPIC_BASE_URL`; the CLI adds `/v1/messages`). */
  url: string;
  port: number;
  /** `url` + `/v1`: the OpenAI base URL (a codex provider's `base_url`; codex adds `/responses`). */
  openaiBaseUrl: string;
  /** Stops listening and drops every open connection (an answer held by `@sleep` ends). */
  close(): Promise<void>;
}

/** Requests carry the whole conversation: a long thread is large, but nothing the CLIs send comes near this. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

type Api = 'openai' | 'anthropic';

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

// Each API's error `type` for a status (OpenAI's is coarser: most are invalid_request_error).
const ERROR_TYPES: Record<number, { openai: string; anthropic: string }> = {
  400: { openai: 'invalid_request_error', anthropic: 'invalid_request_error' },
  401: { openai: 'invalid_request_error', anthropic: 'authentication_error' },
  404: { openai: 'invalid_request_error', anthropic: 'not_found_error' },
  405: { openai: 'invalid_request_error', anthropic: 'invalid_request_error' },
  413: { openai: 'invalid_request_error', anthropic: 'request_too_large' },
  500: { openai: 'server_error', anthropic: 'api_error' },
};

function errorBody(api: Api, status: number, message: string): unknown {
  const types = ERROR_TYPES[status] ?? ERROR_TYPES[500];
  return api === 'anthropic'
    ? anthropicError(message, types?.anthropic ?? 'api_error')
    : openaiError(message, types?.openai ?? 'server_error', status === 401 ? 'invalid_api_key' : null);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_REQUEST_BYTES) throw new HttpProblem(413, `the request is over ${MAX_REQUEST_BYTES} bytes`);
    chunks.push(buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpProblem(400, 'the request body is not JSON');
  }
  if (!isRecord(body)) throw new HttpProblem(400, 'the request body is not a JSON object');
  return body;
}

/** Any key is accepted, none is not: as the real APIs, a CLI that sends no key is told so. */
function requireKey(api: Api, req: IncomingMessage): void {
  const bearer = /^Bearer\s+\S/.test(req.headers.authorization ?? '');
  const key = typeof req.headers['x-api-key'] === 'string' && req.headers['x-api-key'].trim() !== '';
  if (api === 'openai' ? bearer : bearer || key) return;
  throw new HttpProblem(401, 'no API key in the request');
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
  if (path === '/healthz') {
    res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 200 : 405, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'ok' }));
    return;
  }
  const api: Api = path.startsWith('/v1/messages') ? 'anthropic' : 'openai';
  try {
    if (path !== '/v1/responses' && path !== '/v1/messages') throw new HttpProblem(404, `no route ${req.method ?? ''} ${path}`);
    if (req.method !== 'POST') throw new HttpProblem(405, `${path} takes POST`);
    requireKey(api, req);
    const body = await readJson(req);
    if (api === 'openai') {
      const turn = readResponsesRequest(body);
      if (dropsConnection(turn.prompt)) {
        req.socket.destroy();
        return;
      }
      const answer = responsesAnswer(turn);
      await (body.stream === true ? streamResponse(res, turn, answer) : wholeResponse(res, turn, answer));
    } else {
      const turn = readMessagesRequest(body);
      if (dropsConnection(turn.prompt)) {
        req.socket.destroy();
        return;
      }
      const answer = messagesAnswer(turn);
      await (body.stream === true ? streamMessage(res, turn, answer) : wholeMessage(res, turn, answer));
    }
  } catch (error) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const problem = error instanceof HttpProblem ? error : new HttpProblem(500, `the model stand-in failed: ${String(error)}`);
    res.writeHead(problem.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(errorBody(api, problem.status, problem.message)));
  }
}

export async function startModelStandIn(options: ModelStandInOptions = {}): Promise<ModelStandIn> {
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => {
    const started = Date.now();
    res.on('close', () => options.log?.(`${req.method ?? ''} ${req.url ?? ''} ${res.statusCode} ${Date.now() - started} ms`));
    void route(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    port,
    openaiBaseUrl: `${url}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
