// Provider keys on a real MongoDB across a key rotation: a pass re-seals every key sealed under a
// previous key (or none) under the current one, without touching `updatedAt`, so the previous key
// can then be dropped.
import { randomBytes, randomUUID } from 'node:crypto';
import { createLogger } from '@ars/logger';
import { connectMongo, type Mongo } from '@ars/mongo';
import { SecretBox } from '@ars/secret-box';
import { testInfrastructure } from '@ars/testenv';
import { COLLECTIONS, type ProviderKeyDoc } from './collections.js';
import { ModelSettingsStore } from './modelSettings.js';

let mongo: Mongo;
beforeAll(async () => {
  mongo = await connectMongo({
    url: testInfrastructure().mongoUrl,
    dbName: `catalog-keys-${randomUUID()}`,
    logger: createLogger({ service: 'test', level: 'silent' }),
    appName: 'test',
  });
});
afterAll(async () => {
  await mongo?.db.dropDatabase();
  await mongo?.close();
});

const oldKey = { id: '2025', key: randomBytes(32) };
const newKey = { id: '2026', key: randomBytes(32) };

describe('after a rotation a pass re-seals every provider key under the current key, so the previous key can be dropped', () => {
  test('keys sealed under 2025 are re-sealed under 2026, their updatedAt kept; 2026 alone then opens them; a second pass finds nothing', async () => {
    const user = `usr_${randomUUID()}`;
    const before = new ModelSettingsStore(mongo.db, new SecretBox({ current: oldKey }));
    await before.setProviderKey(user, 'openai', 'sk-openai-value');
    await before.setProviderKey(user, 'anthropic', 'sk-anthropic-value');
    const keys = () => mongo.db.collection<ProviderKeyDoc>(COLLECTIONS.providerKeys).find({ userId: user }).sort({ provider: 1 }).toArray();
    const updatedBefore = (await keys()).map((doc) => doc.updatedAt);

    const rotated = new ModelSettingsStore(mongo.db, new SecretBox({ current: newKey, previous: [oldKey] }));
    expect(await rotated.resealProviderKeys()).toEqual({ keyId: '2026', resealed: 2, changedMeanwhile: 0, unopenable: 0, stopped: false });
    const after = await keys();
    expect(after.map((doc) => doc.sealed.keyId)).toEqual(['2026', '2026']);
    expect(after.map((doc) => doc.updatedAt)).toEqual(updatedBefore);

    const newOnly = new ModelSettingsStore(mongo.db, new SecretBox({ current: newKey }));
    expect(await newOnly.revealProviderKey(user, 'openai')).toBe('sk-openai-value');
    expect(await newOnly.revealProviderKey(user, 'anthropic')).toBe('sk-anthropic-value');
    expect((await rotated.resealProviderKeys()).resealed).toBe(0);
  });

  test('a key no key of the keyring opens is counted and left as it is', async () => {
    const user = `usr_${randomUUID()}`;
    await new ModelSettingsStore(mongo.db, new SecretBox({ current: { id: 'lost', key: randomBytes(32) } })).setProviderKey(user, 'openai', 'sk-lost');
    const report = await new ModelSettingsStore(mongo.db, new SecretBox({ current: newKey, previous: [oldKey] })).resealProviderKeys();
    expect(report.unopenable).toBeGreaterThanOrEqual(1);
    const [doc] = await mongo.db.collection<ProviderKeyDoc>(COLLECTIONS.providerKeys).find({ userId: user }).toArray();
    expect(doc?.sealed.keyId).toBe('lost');
  });
});
