// The TCP side: frames off each socket, one command at a time per frame, in arrival order across
// all sockets (handlers are synchronous, so the event loop serialises them). A broken frame closes
// only its own connection.
import { createServer, type Server, type Socket } from 'node:net';
import type { Document } from 'bson';
import { dispatch } from './commands/index.js';
import { CursorStore } from './commands/cursors.js';
import type { CommandContext, ServerInfo } from './commands/context.js';
import { CommandError } from './commands/errors.js';
import { Engine } from './storage/engine.js';
import {
  BsonPayloadError,
  decodeRequest,
  encodeMsgReply,
  encodeQueryReply,
  FrameError,
  HEADER_SIZE,
  MAX_MESSAGE_SIZE,
  OP_MSG,
  OP_QUERY,
  readHeader,
} from './wire/messages.js';

export interface MongoDevServerOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Directory of the journal; memory only when absent. */
  dbpath?: string;
  log?: (line: string) => void;
}

export interface MongoDevServer {
  /** e.g. mongodb://127.0.0.1:PORT/ */
  url: string;
  port: number;
  close(): Promise<void>;
}

const TTL_INTERVAL_MS = 1000;
const FSYNC_INTERVAL_MS = 1000;

export async function startMongoDevServer(options: MongoDevServerOptions = {}): Promise<MongoDevServer> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});
  const engine = Engine.open(options.dbpath, log);
  const cursors = new CursorStore();
  const sockets = new Set<Socket>();
  const info: ServerInfo = { startedAt: new Date(), host, port: 0, dbpath: options.dbpath, connections: () => sockets.size };
  let nextConnectionId = 1;

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const connectionId = nextConnectionId++;
    const connection = new Connection(
      socket,
      connectionId,
      (request) => {
        const context: CommandContext = { engine, cursors, db: request.db, connectionId, via: request.kind, server: info };
        return dispatch(request.body, context, log).reply;
      },
      log,
    );
    socket.on('data', (chunk) => connection.receive(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    engine.close(); // release the dbpath for a retry
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  info.port = port;

  const timers = [
    setInterval(() => {
      try {
        const removed = engine.expire(Date.now());
        if (removed > 0) log(`ttl: removed ${removed} expired documents`);
        cursors.reap(Date.now());
      } catch (error) {
        log(`ttl: sweep failed: ${(error as Error).message}`);
      }
    }, TTL_INTERVAL_MS),
    setInterval(() => {
      try {
        engine.flush();
      } catch (error) {
        log(`journal: fsync failed: ${(error as Error).message}`);
      }
    }, FSYNC_INTERVAL_MS),
  ];
  for (const timer of timers) timer.unref();

  let closing: Promise<void> | undefined;
  return {
    url: `mongodb://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    port,
    close() {
      closing ??= (async () => {
        for (const timer of timers) clearInterval(timer);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await closed;
        engine.close();
      })();
      return closing;
    },
  };
}

/** One client connection: reassembles frames and answers each request. */
class Connection {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;

  constructor(
    private readonly socket: Socket,
    private readonly id: number,
    private readonly execute: (request: { db: string; body: Document; kind: 'msg' | 'query' }) => Document,
    private readonly log: (line: string) => void,
  ) {}

  receive(chunk: Buffer): void {
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    while (this.bufferedBytes >= 4 && !this.socket.destroyed) {
      if ((this.buffered[0] as Buffer).length < 4) this.buffered = [Buffer.concat(this.buffered)];
      const length = (this.buffered[0] as Buffer).readInt32LE(0);
      if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE) {
        this.fail(`invalid message length ${length}`);
        return;
      }
      // Join the chunks only once the whole frame is here (a large frame arrives in many chunks).
      if (this.bufferedBytes < length) return;
      const data = this.buffered.length === 1 ? (this.buffered[0] as Buffer) : Buffer.concat(this.buffered, this.bufferedBytes);
      const frame = data.subarray(0, length);
      const rest = data.subarray(length);
      this.buffered = rest.length > 0 ? [rest] : [];
      this.bufferedBytes = rest.length;
      this.handle(frame);
    }
  }

  private handle(frame: Buffer): void {
    const header = readHeader(frame, 0);
    let reply: Document;
    let moreToCome = false;
    try {
      const request = decodeRequest(frame);
      moreToCome = request.moreToCome;
      reply = this.execute(request);
    } catch (error) {
      if (error instanceof BsonPayloadError) {
        this.log(`connection ${this.id}: ${error.message}`);
        reply = new CommandError(22, error.message).toReply();
      } else if (error instanceof FrameError) {
        this.fail(error.message);
        return;
      } else {
        this.fail(`unexpected error: ${(error as Error).message}`);
        return;
      }
    }
    if (moreToCome) return;
    const encode = header.opCode === OP_QUERY ? encodeQueryReply : encodeMsgReply;
    let bytes: Buffer;
    try {
      bytes = encode(header.requestId, reply);
    } catch (error) {
      bytes = encode(header.requestId, new CommandError(10334, `reply could not be encoded: ${(error as Error).message}`).toReply());
    }
    if (header.opCode !== OP_MSG && header.opCode !== OP_QUERY) return;
    this.socket.write(bytes);
  }

  private fail(reason: string): void {
    this.log(`connection ${this.id}: closing after a malformed message: ${reason}`);
    this.buffered = [];
    this.bufferedBytes = 0;
    this.socket.destroy();
  }
}
