// Test support (not built into dist/): a stand-in for the GitHub REST API paths the GitHub App
// adapter calls, answering with GitHub's response shapes and checking the App JWT like GitHub does.
import { randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface StandInRepository {
  owner: string;
  name: string;
  defaultBranch: string;
}

export interface GitHubStandIn {
  url: string;
  /** Installation access tokens minted, in order. */
  minted: { installationId: number; token: string }[];
  /** Every App JWT presented, with what the check found. */
  jwts: { iss: unknown; valid: boolean; reason?: string }[];
  /** Requests seen, `METHOD path?query`. */
  requests: string[];
  close(): Promise<void>;
}

export interface GitHubStandInOptions {
  appId: string;
  publicKey: KeyObject;
  /** Repositories by GitHub installation id. */
  installations: Record<number, StandInRepository[]>;
}

const b64json = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** GitHub's rules for an App JWT: RS256, signed by the App's key, `iss` the App id, `exp` at most 10 minutes ahead, not expired. */
export function checkAppJwt(
  jwt: string,
  appId: string,
  publicKey: KeyObject,
  nowSeconds = Math.floor(Date.now() / 1000),
): { iss: unknown; valid: boolean; reason?: string } {
  const parts = jwt.split('.');
  if (parts.length !== 3) return { iss: undefined, valid: false, reason: 'not three parts' };
  const [head = '', body = '', signature = ''] = parts;
  let header: { alg?: unknown; typ?: unknown };
  let payload: { iss?: unknown; iat?: unknown; exp?: unknown };
  try {
    header = b64json(head) as typeof header;
    payload = b64json(body) as typeof payload;
  } catch {
    return { iss: undefined, valid: false, reason: 'undecodable' };
  }
  const fail = (reason: string) => ({ iss: payload.iss, valid: false, reason });
  if (header.alg !== 'RS256') return fail(`alg ${String(header.alg)}`);
  if (!verify('RSA-SHA256', Buffer.from(`${head}.${body}`), publicKey, Buffer.from(signature, 'base64url'))) return fail('bad signature');
  if (String(payload.iss) !== appId) return fail(`iss ${String(payload.iss)}`);
  if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return fail('iat/exp missing');
  if (payload.exp <= nowSeconds) return fail('expired');
  if (payload.exp > nowSeconds + 600 + 5) return fail('exp more than 10 minutes ahead');
  if (payload.iat > nowSeconds + 60) return fail('iat in the future');
  return { iss: payload.iss, valid: true };
}

export async function startGitHubStandIn(options: GitHubStandInOptions): Promise<GitHubStandIn> {
  const minted: GitHubStandIn['minted'] = [];
  const jwts: GitHubStandIn['jwts'] = [];
  const requests: string[] = [];
  let baseUrl = '';

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-github-media-type': 'github.v3; format=json' });
    res.end(JSON.stringify(body));
  };
  const unauthorized = (res: ServerResponse, message: string) => send(res, 401, { message, documentation_url: 'https://docs.github.com/rest', status: '401' });

  const repositoryJson = (repo: StandInRepository, id: number) => ({
    id,
    node_id: Buffer.from(`R_${id}`).toString('base64'),
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: true,
    owner: { login: repo.owner, id: 1000, node_id: 'O_1000', type: 'Organization', site_admin: false },
    html_url: `https://github.com/${repo.owner}/${repo.name}`,
    description: null,
    fork: false,
    url: `${baseUrl}/repos/${repo.owner}/${repo.name}`,
    git_url: `git://github.com/${repo.owner}/${repo.name}.git`,
    ssh_url: `git@github.com:${repo.owner}/${repo.name}.git`,
    clone_url: `https://github.com/${repo.owner}/${repo.name}.git`,
    default_branch: repo.defaultBranch,
    visibility: 'private',
    archived: false,
    disabled: false,
    permissions: { admin: false, maintain: false, push: true, triage: false, pull: true },
  });

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    requests.push(`${req.method ?? ''} ${url.pathname}${url.search}`);
    const authorization = req.headers.authorization ?? '';
    const tokenRoute = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
    if (req.method === 'POST' && tokenRoute) {
      const jwt = /^Bearer (.+)$/i.exec(authorization)?.[1];
      if (!jwt) return unauthorized(res, 'A JSON web token could not be decoded');
      const check = checkAppJwt(jwt, options.appId, options.publicKey);
      jwts.push(check);
      if (!check.valid) return unauthorized(res, `'Issuer' claim ('iss') must be an Integer or the JWT is invalid: ${check.reason ?? ''}`);
      const installationId = Number(tokenRoute[1]);
      if (!options.installations[installationId])
        return send(res, 404, {
          message: 'Not Found',
          documentation_url: 'https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app',
          status: '404',
        });
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      minted.push({ installationId, token });
      return send(res, 201, {
        token,
        expires_at: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions: { contents: 'write', metadata: 'read', pull_requests: 'write' },
        repository_selection: 'selected',
      });
    }
    if (req.method === 'GET' && url.pathname === '/installation/repositories') {
      const token = /^(?:token|bearer) (.+)$/i.exec(authorization)?.[1];
      const grant = minted.find((m) => m.token === token);
      if (!grant) return unauthorized(res, 'Bad credentials');
      const all = options.installations[grant.installationId] ?? [];
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
      const page = Number(url.searchParams.get('page') ?? 1);
      const slice = all.slice((page - 1) * perPage, page * perPage);
      return send(res, 200, {
        total_count: all.length,
        repository_selection: 'selected',
        repositories: slice.map((repo, i) => repositoryJson(repo, grant.installationId * 100_000 + (page - 1) * perPage + i + 1)),
      });
    }
    send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: baseUrl,
    minted,
    jwts,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
