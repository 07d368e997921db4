// Bad input over a raw socket: the offending client gets an error or loses its own connection,
// the server keeps serving everyone else. Development-server specific (not part of conformance).
import { connect, type Socket } from 'node:net';
import { deserialize, serialize, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { startMongoDevServer, type MongoDevServer } from '../src/index.js';

let server: MongoDevServer;
let client: MongoClient;
const logs: string[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startMongoDevServer({ log: (line) => logs.push(line) });
  client = new MongoClient(server.url, { serverSelectionTimeoutMS: 3000 });
  await client.connect();
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await client.close();
  await server.close();
});

let requestId = 100;

function header(length: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(16);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(requestId++, 4);
  buffer.writeInt32LE(0, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

function opMsg(body: Document | Buffer, flags = 0, checksum = false): Buffer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(serialize(body));
  const flagBytes = Buffer.alloc(4);
  flagBytes.writeUInt32LE(flags, 0);
  const parts = [flagBytes, Buffer.from([0]), bytes, ...(checksum ? [Buffer.alloc(4)] : [])];
  const payload = Buffer.concat(parts);
  return Buffer.concat([header(16 + payload.length, 2013), payload]);
}

function opQuery(collection: string, query: Document): Buffer {
  const payload = Buffer.concat([
    Buffer.alloc(4),
    Buffer.from(`${collection}\0`),
    Buffer.from([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]),
    Buffer.from(serialize(query)),
  ]);
  return Buffer.concat([header(16 + payload.length, 2004), payload]);
}

/** A raw connection that collects replies (as documents) and notices when the server closes it. */
class RawClient {
  private data = Buffer.alloc(0);
  private waiting: Array<() => void> = [];
  closed = false;

  constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static async open(): Promise<RawClient> {
    const socket = connect(server.port, '127.0.0.1');
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    return new RawClient(socket);
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next reply's document, or undefined if the server closed the connection instead. */
  async reply(): Promise<Document | undefined> {
    for (;;) {
      if (this.data.length >= 16) {
        const length = this.data.readInt32LE(0);
        if (this.data.length >= length) {
          const frame = this.data.subarray(0, length);
          this.data = this.data.subarray(length);
          const opCode = frame.readInt32LE(12);
          return deserialize(frame.subarray(opCode === 1 ? 36 : 21));
        }
      }
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  async closedByServer(): Promise<boolean> {
    while (!this.closed) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return true;
  }
}

async function othersStillServed(): Promise<void> {
  const collection = client.db('robust').collection('probe');
  await collection.insertOne({ at: new Date() });
  expect(await collection.countDocuments()).toBeGreaterThan(0);
}

describe('malformed frames close that connection only, with a log line', () => {
  test.each([
    ['a length below the header size', Buffer.from([3, 0, 0, 0, 1, 2, 3, 4])],
    ['a length above the maximum message size', Buffer.concat([header(0x7fffffff, 2013), Buffer.alloc(8)])],
    ['an unknown opcode', Buffer.concat([header(24, 9999), Buffer.alloc(8)])],
    ['OP_COMPRESSED, which the handshake never negotiated', Buffer.concat([header(25, 2012), Buffer.alloc(9)])],
    ['an OP_MSG section of an unknown kind', Buffer.concat([header(26, 2013), Buffer.from([0, 0, 0, 0, 7]), Buffer.alloc(5)])],
    ['a body document whose length overruns the frame', Buffer.concat([header(26, 2013), Buffer.from([0, 0, 0, 0, 0, 0xff, 0, 0, 0, 0])])],
  ])('%s', async (_name, bytes) => {
    const raw = await RawClient.open();
    const before = logs.length;
    raw.send(bytes);
    expect(await raw.closedByServer()).toBe(true);
    expect(logs.slice(before).some((line) => line.includes('malformed'))).toBe(true);
    await othersStillServed();
  });

  test('a client that disconnects halfway through a frame harms no one', async () => {
    const raw = await RawClient.open();
    raw.send(header(1000, 2013));
    raw['socket'].destroy();
    await othersStillServed();
  });
});

describe('malformed BSON in a well-formed frame gets an InvalidBSON error and the connection stays usable', () => {
  test('the error reply names the problem; the next command on the same socket works', async () => {
    const raw = await RawClient.open();
    // A document claiming a string field whose length runs past the document's end.
    const bad = Buffer.from([16, 0, 0, 0, 0x02, 0x61, 0, 0xff, 0xff, 0, 0, 0x78, 0x78, 0x78, 0, 0]);
    raw.send(opMsg(bad));
    const error = await raw.reply();
    expect(error).toMatchObject({ ok: 0, code: 22 });
    expect(String(error?.errmsg)).toContain('BSON');
    raw.send(opMsg({ ping: 1, $db: 'admin' }));
    expect(await raw.reply()).toMatchObject({ ok: 1 });
    await othersStillServed();
  });
});

describe('the wire protocol details a driver may use', () => {
  test('the legacy OP_QUERY handshake on admin.$cmd gets an OP_REPLY with ismaster', async () => {
    const raw = await RawClient.open();
    raw.send(opQuery('admin.$cmd', { isMaster: 1, helloOk: true }));
    expect(await raw.reply()).toMatchObject({ ok: 1, ismaster: true, helloOk: true, maxWireVersion: expect.any(Number) });
  });

  test('a driver asking for compression gets none and works uncompressed', async () => {
    const compressing = new MongoClient(server.url, { compressors: ['zlib'], serverSelectionTimeoutMS: 3000 });
    try {
      await compressing.connect();
      await compressing
        .db('robust')
        .collection('zipped')
        .insertOne({ text: 'y'.repeat(10_000) });
      expect((await compressing.db('robust').collection('zipped').findOne({}))?.text).toHaveLength(10_000);
    } finally {
      await compressing.close();
    }
  });

  test('other commands over OP_QUERY are refused with code 352', async () => {
    const raw = await RawClient.open();
    raw.send(opQuery('admin.$cmd', { ping: 1 }));
    expect(await raw.reply()).toMatchObject({ ok: 0, code: 352 });
  });

  test('moreToCome: the server applies the write and sends no reply', async () => {
    const raw = await RawClient.open();
    raw.send(opMsg({ insert: 'quiet', documents: [{ _id: 'silent' }], $db: 'robust' }, 1 << 1));
    raw.send(opMsg({ find: 'quiet', filter: { _id: 'silent' }, $db: 'robust' }));
    const reply = await raw.reply();
    expect(reply?.cursor.firstBatch).toEqual([{ _id: 'silent' }]);
  });

  test('frames split into single bytes, and several frames in one write, are reassembled', async () => {
    const raw = await RawClient.open();
    const ping = opMsg({ ping: 1, $db: 'admin' });
    for (const byte of ping) {
      raw.send(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await raw.reply()).toMatchObject({ ok: 1 });
    raw.send(Buffer.concat([opMsg({ ping: 1, $db: 'admin' }), opMsg({ buildInfo: 1, $db: 'admin' })]));
    expect(await raw.reply()).toMatchObject({ ok: 1 });
    expect(await raw.reply()).toMatchObject({ ok: 1, version: expect.any(String) });
  });

  test('a checksum flag is tolerated', async () => {
    const raw = await RawClient.open();
    raw.send(opMsg({ ping: 1, $db: 'admin' }, 1, true));
    expect(await raw.reply()).toMatchObject({ ok: 1 });
  });

  test('a document sequence section (kind 1) supplies the documents of an insert', async () => {
    const raw = await RawClient.open();
    const docs = Buffer.concat([Buffer.from(serialize({ _id: 's1' })), Buffer.from(serialize({ _id: 's2' }))]);
    const id = Buffer.from('documents\0');
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + id.length + docs.length, 0);
    const body = Buffer.from(serialize({ insert: 'seq', $db: 'robust' }));
    const payload = Buffer.concat([Buffer.alloc(4), Buffer.from([0]), body, Buffer.from([1]), size, id, docs]);
    raw.send(Buffer.concat([header(16 + payload.length, 2013), payload]));
    expect(await raw.reply()).toMatchObject({ ok: 1, n: 2 });
  });

  test('a command without $db is refused', async () => {
    const raw = await RawClient.open();
    raw.send(opMsg({ ping: 1 }));
    expect(await raw.reply()).toMatchObject({ ok: 0 });
  });
});

describe('unsupported features are errors that name them', () => {
  test('multi-document transactions are refused with a clear error', async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      await expect(client.db('robust').collection('tx').insertOne({ a: 1 }, { session })).rejects.toThrow(/[Tt]ransaction/);
    } finally {
      await session.abortTransaction().catch(() => undefined);
      await session.endSession();
    }
  });

  test('$out, collations and text indexes name what is unsupported', async () => {
    const db = client.db('robust');
    await expect(
      db
        .collection('probe')
        .aggregate([{ $out: 'elsewhere' }])
        .toArray(),
    ).rejects.toThrow(/\$out/);
    await expect(
      db
        .collection('probe')
        .find({}, { collation: { locale: 'fr' } })
        .toArray(),
    ).rejects.toThrow(/collation/);
    await expect(db.collection('probe').createIndex({ body: 'text' })).rejects.toThrow(/text/);
    await expect(db.collection('probe').find({ $where: 'true' }).toArray()).rejects.toThrow(/\$where/);
    await expect(db.command({ collMod: 'probe', validator: {} })).rejects.toThrow(/validator/);
    await expect(db.command({ compact: 'probe' })).rejects.toMatchObject({ code: 59, message: expect.stringContaining('compact') });
  });

  test('a getMore on an unknown cursor is CursorNotFound (43)', async () => {
    const { Long } = await import('bson');
    await expect(client.db('robust').command({ getMore: Long.fromNumber(123456789), collection: 'probe' })).rejects.toMatchObject({ code: 43 });
  });
});
