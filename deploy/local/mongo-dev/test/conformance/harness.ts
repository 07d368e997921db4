// The conformance suite talks to a server only through the official driver: `MONGO_URL` when
// given (a real MongoDB), otherwise a development server started in this process. Each suite
// works in its own fresh database and drops it afterwards, so it runs unchanged on either.
import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { startMongoDevServer, type MongoDevServer } from '../../src/index.js';

export interface Conformance {
  url: string;
  client: MongoClient;
  db: Db;
  /** More clients on the same server (closed by `close`). */
  newClient(): Promise<MongoClient>;
  close(): Promise<void>;
}

export async function openConformance(suite: string): Promise<Conformance> {
  let server: MongoDevServer | undefined;
  let url = process.env.MONGO_URL;
  if (!url) {
    server = await startMongoDevServer({ port: 0 });
    url = server.url;
  }
  const clients: MongoClient[] = [];
  const newClient = async (): Promise<MongoClient> => {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    clients.push(client);
    return client;
  };
  const client = await newClient();
  const db = client.db(`conf_${suite}_${randomBytes(4).toString('hex')}`);
  return {
    url,
    client,
    db,
    newClient,
    async close() {
      try {
        await db.dropDatabase();
      } finally {
        await Promise.all(clients.map((c) => c.close()));
        await server?.close();
      }
    },
  };
}

/** Polls `probe` until it returns true or `timeoutMs` passes (TTL monitors run on their own clock). */
export async function eventually(probe: () => Promise<boolean>, timeoutMs: number, intervalMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
