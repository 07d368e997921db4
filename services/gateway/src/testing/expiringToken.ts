// A PAT stored straight into the gateway's database with an expiry seconds away: no route makes one
// (the shortest `expiresInDays` is a day), and a PAT's expiry never changes once made.
import { MongoClient } from 'mongodb';
import { displayPrefixOf, generateToken, hashToken } from '../domain/personalAccessTokens.js';

export async function storeExpiringToken(
  where: { mongoUrl: string; mongoDb: string },
  userId: string,
  expiresInMs: number,
): Promise<{ plaintext: string; expiresAt: Date }> {
  const plaintext = generateToken();
  const expiresAt = new Date(Date.now() + expiresInMs);
  const client = await MongoClient.connect(where.mongoUrl);
  try {
    await client
      .db(where.mongoDb)
      .collection('personal_access_tokens')
      .insertOne({
        _id: `pat_expiring_${Date.now()}_${plaintext.slice(-6)}` as never,
        userId,
        name: 'expiring',
        tokenHash: hashToken(plaintext),
        prefix: displayPrefixOf(plaintext),
        scopes: ['read', 'write'],
        createdAt: new Date(),
        expiresAt,
        revokedAt: null,
      });
  } finally {
    await client.close();
  }
  return { plaintext, expiresAt };
}
