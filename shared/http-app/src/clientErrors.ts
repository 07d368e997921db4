import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { failureEnvelope } from '@ars/errors';
import type { Logger } from '@ars/logger';
import { REQUEST_ID_HEADER } from './requestId.js';

/** An error Node's HTTP server reports on a connection (`'clientError'`): a parser refusal, a timeout, a socket error. */
interface ClientError extends Error {
  code?: string;
  /** The bytes being parsed when the parser refused them (absent for timeouts and socket errors). */
  rawPacket?: Buffer;
}

/** A server-side socket as Node hands it to `'clientError'`: the response in flight on it, if any (not in @types/node). */
type ServerSocket = Socket & { _httpMessage?: { headersSent: boolean } | null };

export interface EdgeLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxHeaderSizeBytes: number;
  logger?: Logger | undefined;
}

/**
 * How long a refused connection stays open after its answer, reading and discarding what its client
 * still sends: closing a socket with unread bytes sends a reset, and a reset can make the client drop
 * the answer before reading it (a long header is still arriving when the parser refuses it).
 */
const LINGER_MS = 2_000;

/** The sockets of each server answered at the edge and lingering (closeServer drops them at once). */
const lingeringByServer = new WeakMap<Server, Set<Socket>>();

/**
 * Answers what Node's HTTP server refuses before any middleware runs — a malformed request, a request
 * line and headers over the limit, a client too slow to send its headers or its request — with 400
 * BAD_REQUEST in the contract's envelope instead of Node's bare status line. The contract has no 408,
 * 413 or 431 code and promises that the status matches the code (docs/decisions.md, "Errors"), so all
 * are 400; the message says which limit. The response is complete (Content-Length, `Connection:
 * close`) and the socket is ended after it. A socket already reset, no longer writable, or with a
 * response of its own under way gets no second answer: it is destroyed.
 */
export function answerClientErrors(server: Server, limits: EdgeLimits): void {
  const lingering = new Set<Socket>();
  lingeringByServer.set(server, lingering);
  server.on('clientError', (error: ClientError, socket: ServerSocket) => {
    // Node reports each further chunk a refused client sends as another error: it was answered already.
    if (lingering.has(socket)) return;
    // A connection that sent nothing has no request to answer: Node's connection check times it out
    // too (as a request timeout), racing closeSilentConnections; either way it is closed without a word.
    const silent = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0;
    if (silent || error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const refusal = refusalOf(error, limits);
    limits.logger?.info({ request_id: requestId, status: 400, code: 'BAD_REQUEST', refused: refusal.reason }, 'request refused at the edge');
    lingering.add(socket);
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once('close', () => {
      clearTimeout(linger);
      lingering.delete(socket);
    });
    // After a parse error the parser refuses every later byte; after a timeout it would still parse
    // what the client sends next and hand a handler that request, so reading stops there.
    if (!error.code?.startsWith('HPE_')) socket.pause();
    socket.end(envelopeResponse(refusal.message, requestId, isHeadRequest(error)));
  });
}

/** Destroys the connections a server answered at the edge and keeps lingering (on shutdown). */
export function dropRefusedConnections(server: Server): void {
  for (const socket of lingeringByServer.get(server) ?? []) socket.destroy();
}

/**
 * Closes a connection that has sent no byte after `timeoutMs`, whatever Node's version does with
 * one (Node 20's connection check also times it out, from the connection on, at its next check:
 * answerClientErrors closes it then without an answer, as here).
 */
export function closeSilentConnections(server: Server, timeoutMs: number): void {
  server.on('connection', (socket: Socket) => {
    const silence = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, timeoutMs);
    silence.unref();
    socket.once('close', () => clearTimeout(silence));
  });
}

interface Refusal {
  /** What Node itself would have answered, for the log. */
  reason: 'timeout' | 'headers too large' | 'chunk extensions too large' | 'malformed';
  message: string;
}

function refusalOf(error: ClientError, limits: EdgeLimits): Refusal {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        reason: 'timeout',
        message: `Request not received in time: its headers must arrive within ${duration(limits.headersTimeoutMs)} and the whole request within ${duration(limits.requestTimeoutMs)}`,
      };
    case 'HPE_HEADER_OVERFLOW':
      return { reason: 'headers too large', message: `The request line and headers exceed the ${limits.maxHeaderSizeBytes}-byte limit` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { reason: 'chunk extensions too large', message: 'The chunk extensions of the request body exceed their limit' };
    default:
      return { reason: 'malformed', message: 'Malformed HTTP request' };
  }
}

function duration(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000} s` : `${ms} ms`;
}

/** A refused HEAD gets the headers alone: a body after them would be read as the start of another response. */
function isHeadRequest(error: ClientError): boolean {
  return error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
}

function envelopeResponse(message: string, requestId: string, headersOnly: boolean): string {
  const body = JSON.stringify(failureEnvelope('BAD_REQUEST', message));
  const head = [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `${REQUEST_ID_HEADER}: ${requestId}`,
    'Cache-Control: no-store',
    'Connection: close',
  ].join('\r\n');
  return `${head}\r\n\r\n${headersOnly ? '' : body}`;
}
