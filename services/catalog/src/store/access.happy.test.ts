// A user's repository list (AccessStore.reposOf, the one query of `GET /repos`) on a real MongoDB:
// the access records joined to their repositories, in order, exactly the repositories' documents.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@ars/logger';
import { connectMongo, type Mongo } from '@ars/mongo';
import { testInfrastructure } from '@ars/testenv';
import { AccessStore } from './access.js';
import { RepoStore } from './repos.js';

let mongo: Mongo;
beforeAll(async () => {
  mongo = await connectMongo({
    url: testInfrastructure().mongoUrl,
    dbName: `catalog-access-${randomUUID()}`,
    logger: createLogger({ service: 'test', level: 'silent' }),
    appName: 'test',
  });
});
afterAll(async () => {
  await mongo?.db.dropDatabase();
  await mongo?.close();
});

/** A user reaching three repositories of one installation (`b/one`, `a/two`, `c/three`). */
async function userWithThreeRepos(): Promise<{ userId: string; repos: RepoStore; access: AccessStore; ids: Record<string, string> }> {
  const repos = new RepoStore(mongo.db);
  const access = new AccessStore(mongo.db);
  const userId = `usr_${randomUUID()}`;
  const installationId = Math.floor(Math.random() * 1e9);
  const recorded = [];
  for (const fullName of ['b/one', 'a/two', 'c/three']) {
    const hosted = { externalId: null, fullName, defaultBranch: 'main', cloneUrl: `file:///${fullName}.git` };
    recorded.push((await repos.upsert(installationId, hosted)).repo);
  }
  await access.grant(userId, 'local', installationId, recorded);
  return { userId, repos, access, ids: Object.fromEntries(recorded.map((repo) => [repo.full_name, repo._id])) };
}

describe("a user's list is their repositories' own documents, by full_name, removed ones left out", () => {
  test('the repositories come by full_name, each exactly its stored document, limit applied after the order', async () => {
    const { userId, access, repos, ids } = await userWithThreeRepos();
    const listed = await access.reposOf(userId, { limit: 2 });
    expect(listed.map((repo) => repo.full_name)).toEqual(['a/two', 'b/one']);
    expect(listed[0]).toEqual(await repos.find(ids['a/two'] ?? ''));
  });

  test('a repository marked removed is left out even while an access record to it remains', async () => {
    const { userId, access, repos, ids } = await userWithThreeRepos();
    await repos.markRemoved([ids['b/one'] ?? '']);
    expect((await access.reposOf(userId, { limit: 100 })).map((repo) => repo.full_name)).toEqual(['a/two', 'c/three']);
  });

  test('q matches a substring of full_name in any case', async () => {
    const { userId, access } = await userWithThreeRepos();
    expect((await access.reposOf(userId, { q: 'THR', limit: 100 })).map((repo) => repo.full_name)).toEqual(['c/three']);
  });
});
