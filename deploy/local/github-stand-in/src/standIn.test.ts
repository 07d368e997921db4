import { createHash, createHmac, generateKeyPairSync, sign, timingSafeEqual, type KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { checkAppJwt } from './appJwt.js';
import { startGitHubStandIn, type GitHubStandIn } from './standIn.js';

const APP_ID = '31337';
const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const { privateKey, publicKey } = keyPair();
const HEAD = 'c'.repeat(40);
const BASE = 'd'.repeat(40);

const jwt = (payload: Record<string, unknown>, alg = 'RS256', key: KeyObject = privateKey): string => {
  const head = Buffer.from(JSON.stringify({ alg, typ: 'JWT' })).toString('base64url');
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${head}.${body}.${sign('RSA-SHA256', Buffer.from(`${head}.${body}`), key).toString('base64url')}`;
};
const appJwt = () => {
  const now = Math.floor(Date.now() / 1000);
  return jwt({ iss: APP_ID, iat: now - 30, exp: now + 540 });
};

let github: GitHubStandIn;
let token: string;
let pr: number;
beforeAll(async () => {
  github = await startGitHubStandIn({
    appId: APP_ID,
    publicKey,
    installations: { 5: [{ owner: 'acme', name: 'widgets', defaultBranch: 'main' }], 6: [{ owner: 'other', name: 'secret', defaultBranch: 'main' }] },
  });
  pr = github.openPullRequest('acme/widgets', {
    title: 'Change',
    head: { ref: 'feature', sha: HEAD },
    base: { ref: 'main', sha: BASE },
    files: [{ filename: 'a.ts', patch: '@@ -1,2 +1,2 @@\n-x\n+y\n z' }],
  });
  const minted = await fetch(`${github.url}/app/installations/5/access_tokens`, { method: 'POST', headers: { authorization: `Bearer ${appJwt()}` } });
  expect(minted.status).toBe(201);
  token = ((await minted.json()) as { token: string }).token;
});
afterAll(async () => {
  await github.close();
});

const api = (method: string, path: string, body?: unknown) =>
  fetch(`${github.url}${path}`, {
    method,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('the stand-in checks App JWTs as GitHub does: RS256 signed by the App key, iss the App id, not expired, exp at most 10 minutes ahead', () => {
  const now = Math.floor(Date.now() / 1000);
  test.each([
    ['an RS256 JWT of the App, iss a string', jwt({ iss: APP_ID, iat: now - 30, exp: now + 540 }), true, undefined],
    ['iss as a number', jwt({ iss: Number(APP_ID), iat: now - 30, exp: now + 540 }), true, undefined],
    ['another iss', jwt({ iss: '1', iat: now - 30, exp: now + 540 }), false, 'iss 1'],
    ['expired', jwt({ iss: APP_ID, iat: now - 700, exp: now - 100 }), false, 'expired'],
    ['exp more than 10 minutes ahead', jwt({ iss: APP_ID, iat: now, exp: now + 3600 }), false, 'exp more than 10 minutes ahead'],
    ['iat in the future', jwt({ iss: APP_ID, iat: now + 600, exp: now + 540 }), false, 'iat in the future'],
    ['no iat or exp', jwt({ iss: APP_ID }), false, 'iat/exp missing'],
    ['HS256', jwt({ iss: APP_ID, iat: now - 30, exp: now + 540 }, 'HS256'), false, 'alg HS256'],
    ['signed by another key', jwt({ iss: APP_ID, iat: now - 30, exp: now + 540 }, 'RS256', keyPair().privateKey), false, 'bad signature'],
    ['not a JWT', 'not-a-jwt', false, 'not three parts'],
  ])('%s: valid=%s', (_case, token, valid, reason) => {
    const check = checkAppJwt(token, APP_ID, publicKey, now);
    expect(check.valid).toBe(valid);
    expect(check.reason).toBe(reason);
  });

  test('a token request with a refused JWT is 401 and mints nothing', async () => {
    const minted = github.minted.length;
    const answer = await fetch(`${github.url}/app/installations/5/access_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt({ iss: '1', iat: now - 30, exp: now + 540 })}` },
    });
    expect(answer.status).toBe(401);
    expect(github.minted).toHaveLength(minted);
  });
});

describe('an installation token reaches only its installation’s repositories', () => {
  test('another installation’s repository is 404; no token is 401', async () => {
    expect((await api('GET', '/repos/other/secret/pulls/1')).status).toBe(404);
    expect((await fetch(`${github.url}/repos/acme/widgets/pulls/${pr}`)).status).toBe(401);
  });
});

describe('a check-run update carries at most 50 annotations, appended across updates; more is 422 and changes nothing', () => {
  test('50 then 51 then 1: 200, 422, 200 with 51 annotations in all', async () => {
    const created = await api('POST', '/repos/acme/widgets/check-runs', { name: 'review', head_sha: HEAD, external_id: 'a-1', status: 'in_progress' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const annotations = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: 'a.ts', start_line: 1, end_line: 1, annotation_level: 'notice', message: `m${i}` }));
    const patch = (n: number) => api('PATCH', `/repos/acme/widgets/check-runs/${id}`, { output: { title: 't', summary: 's', annotations: annotations(n) } });
    expect((await patch(50)).status).toBe(200);
    const refused = await patch(51);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toContain('Only 50 annotations are allowed per request');
    const last = await patch(1);
    expect(((await last.json()) as { output: { annotations_count: number } }).output.annotations_count).toBe(51);
    expect(github.checkRuns('acme/widgets').find((r) => r.id === id)?.annotationBatches).toEqual([50, 1]);
  });

  test('a check run on a commit the repository does not have is 422; a head from before a push is still a commit', async () => {
    expect((await api('POST', '/repos/acme/widgets/check-runs', { name: 'review', head_sha: 'e'.repeat(40) })).status).toBe(422);
    const other = github.openPullRequest('acme/widgets', {
      title: 'Old head',
      head: { ref: 'old', sha: '9'.repeat(40) },
      base: { ref: 'main', sha: BASE },
      files: [],
    });
    github.pushHead('acme/widgets', other, { sha: '8'.repeat(40) });
    expect((await api('POST', '/repos/acme/widgets/check-runs', { name: 'review', head_sha: '9'.repeat(40) })).status).toBe(201);
  });
});

describe('injected faults: the next N requests matching a method and path answer the fault, with Retry-After', () => {
  test('two 429s with Retry-After 7, then the answer', async () => {
    github.failNext({ method: 'GET', path: /\/pulls\/\d+$/, status: 429, times: 2, retryAfterSeconds: 7 });
    for (let i = 0; i < 2; i += 1) {
      const answer = await api('GET', `/repos/acme/widgets/pulls/${pr}`);
      expect([answer.status, answer.headers.get('retry-after')]).toEqual([429, '7']);
    }
    expect((await api('GET', `/repos/acme/widgets/pulls/${pr}`)).status).toBe(200);
  });

  test('a 403 of an exhausted rate limit carries x-ratelimit-remaining 0 and a reset time', async () => {
    github.failNext({ method: 'GET', path: `/repos/acme/widgets/pulls/${pr}/files`, status: 403, rateLimitExhausted: true });
    const answer = await api('GET', `/repos/acme/widgets/pulls/${pr}/files`);
    expect([answer.status, answer.headers.get('x-ratelimit-remaining')]).toEqual([403, '0']);
    expect(Number(answer.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });
});

describe('webhooks are signed as GitHub signs them: X-Hub-Signature-256 is sha256= and the HMAC-SHA256 of the raw body under the secret', () => {
  const SECRET = 'webhook-secret-for-tests';
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  let receiver: Server;
  let url: string;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/webhooks`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  const verified = (delivery: { headers: IncomingHttpHeaders; body: string }, secret = SECRET): boolean => {
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`);
    const actual = Buffer.from(String(delivery.headers['x-hub-signature-256']));
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  };

  test('pull_request opened and synchronize, then check_run rerequested, with GitHub’s payload fields', async () => {
    const opened = await github.deliverWebhook({ url, secret: SECRET }, { event: 'pull_request', action: 'opened', fullName: 'acme/widgets', number: pr });
    const before = github.pushHead('acme/widgets', pr, { sha: 'f'.repeat(40) });
    await github.deliverWebhook({ url, secret: SECRET }, { event: 'pull_request', action: 'synchronize', fullName: 'acme/widgets', number: pr, before });
    const run = (await (
      await api('POST', '/repos/acme/widgets/check-runs', { name: 'review', head_sha: 'f'.repeat(40), external_id: 'attempt-9' })
    ).json()) as { id: number };
    await github.deliverWebhook({ url, secret: SECRET }, { event: 'check_run', action: 'rerequested', fullName: 'acme/widgets', checkRunId: run.id });

    expect(opened.status).toBe(204);
    expect(received).toHaveLength(3);
    for (const delivery of received) {
      expect(verified(delivery)).toBe(true);
      expect(verified(delivery, 'another secret')).toBe(false);
      expect(delivery.headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(delivery.headers['content-type']).toBe('application/json');
    }
    expect(received.map((d) => d.headers['x-github-event'])).toEqual(['pull_request', 'pull_request', 'check_run']);
    expect(received[0]?.headers['x-github-delivery']).toBe(opened.deliveryId);

    const [openedBody, syncBody, rerequested] = received.map((d) => JSON.parse(d.body) as Record<string, unknown>);
    expect(openedBody).toMatchObject({
      action: 'opened',
      number: pr,
      pull_request: { number: pr, state: 'open', head: { ref: 'feature', sha: HEAD }, base: { ref: 'main', sha: BASE } },
      repository: { full_name: 'acme/widgets' },
      installation: { id: 5 },
    });
    expect(syncBody).toMatchObject({ action: 'synchronize', before: HEAD, after: 'f'.repeat(40), pull_request: { head: { sha: 'f'.repeat(40) } } });
    expect(rerequested).toMatchObject({
      action: 'rerequested',
      check_run: {
        id: run.id,
        name: 'review',
        head_sha: 'f'.repeat(40),
        external_id: 'attempt-9',
        check_suite: { head_sha: 'f'.repeat(40), head_branch: 'feature' },
        pull_requests: [{ number: pr }],
      },
      installation: { id: 5 },
    });
  });
});

describe('contents are served as GitHub serves them: a file as base64 at the ref, a directory as an array of entries, 404 Not Found for a missing path or ref', () => {
  test('a file at the head and at the base (by SHA or branch), a directory, a missing path, an unknown ref', async () => {
    const headSha = github.pullRequest('acme/widgets', pr)?.head.sha ?? HEAD; // the feature branch's commit now (an earlier test pushed)
    github.setCommitFiles('acme/widgets', headSha, { 'src/a.ts': 'head\n', 'src/lib/b.ts': 'b\n', 'README.md': '# r\n' });
    github.setCommitFiles('acme/widgets', BASE, { 'src/a.ts': 'base\n' });
    const file = async (path: string, ref: string) => {
      const res = await api('GET', `/repos/acme/widgets/contents/${path}?ref=${ref}`);
      expect(res.status).toBe(200);
      return (await res.json()) as { type: string; encoding: string; size: number; path: string; sha: string; content: string };
    };
    const gitBlobSha = createHash('sha1').update('blob 5\0head\n').digest('hex'); // what `git hash-object` answers
    const head = await file('src/a.ts', headSha);
    expect(head).toMatchObject({ type: 'file', encoding: 'base64', size: 5, name: 'a.ts', path: 'src/a.ts', sha: gitBlobSha });
    expect(head.content).toBe(`${Buffer.from('head\n').toString('base64')}\n`);
    expect(Buffer.from((await file('src/a.ts', 'feature')).content, 'base64').toString()).toBe('head\n');
    expect(Buffer.from((await file('src/a.ts', 'main')).content, 'base64').toString()).toBe('base\n');

    const dir = await api('GET', `/repos/acme/widgets/contents/src?ref=${headSha}`);
    expect(dir.status).toBe(200);
    expect(((await dir.json()) as { type: string; name: string; content?: string }[]).map((e) => [e.type, e.name, e.content])).toEqual([
      ['file', 'a.ts', undefined],
      ['dir', 'lib', undefined],
    ]);

    const missing = await api('GET', `/repos/acme/widgets/contents/src/lib/b.ts?ref=${BASE}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: 'Not Found' });
    const noRef = await api('GET', `/repos/acme/widgets/contents/src/a.ts?ref=nope`);
    expect(noRef.status).toBe(404);
    expect(await noRef.json()).toMatchObject({ message: 'No commit found for the ref nope' });
  });
});

describe('a repository given a cloneUrl answers it as its clone_url everywhere (a local bare repository a sandbox can clone); without one, GitHub’s https URL', () => {
  test('GET /installation/repositories, GET /repos/{o}/{r} and a pull request’s head and base repo; another installation’s repository is 404', async () => {
    const cloneUrl = 'file:///tmp/stand-in/acme/mirrored.git';
    github.addInstallation(5, [{ owner: 'acme', name: 'mirrored', defaultBranch: 'main', cloneUrl }]);
    const number = github.openPullRequest('acme/mirrored', {
      title: 'Mirrored',
      head: { ref: 'feature', sha: HEAD },
      base: { ref: 'main', sha: BASE },
      files: [],
    });

    const listed = (await (await api('GET', '/installation/repositories')).json()) as { repositories: { full_name: string; clone_url: string }[] };
    expect(listed.repositories.map((r) => [r.full_name, r.clone_url])).toEqual([
      ['acme/widgets', 'https://github.com/acme/widgets.git'],
      ['acme/mirrored', cloneUrl],
    ]);
    const repository = await api('GET', '/repos/acme/mirrored');
    expect(repository.status).toBe(200);
    expect(await repository.json()).toMatchObject({ full_name: 'acme/mirrored', default_branch: 'main', clone_url: cloneUrl });
    expect(await (await api('GET', '/repos/acme/widgets')).json()).toMatchObject({ clone_url: 'https://github.com/acme/widgets.git' });
    const pull = (await (await api('GET', `/repos/acme/mirrored/pulls/${number}`)).json()) as {
      head: { repo: { clone_url: string } };
      base: { repo: { clone_url: string } };
    };
    expect([pull.head.repo.clone_url, pull.base.repo.clone_url]).toEqual([cloneUrl, cloneUrl]);
    expect((await api('GET', '/repos/other/secret')).status).toBe(404);
  });
});
