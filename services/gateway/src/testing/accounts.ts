// Accounts through the development account route, tokens through the PAT lifecycle routes: HTTP only.

export interface Account {
  userId: string;
  sessionCookie: string;
  installationId: number;
  repos: { id: string; full_name: string; default_branch: string | null }[];
}

export interface CreatedToken {
  id: string;
  token: string;
  prefix: string;
  scopes: string[];
  expiresAt: string | null;
}

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: { ok: true; data: T } | { ok: false; error: { code: string; message: string } };
}

export async function call<T = unknown>(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer<T>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { ...init, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as Answer<T>['body'] };
}

export function dataOf<T>(answer: Answer<T>): T {
  if (!answer.body.ok) throw new Error(`expected success, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

export function errorOf(answer: Answer): { code: string; message: string } {
  if (answer.body.ok) throw new Error(`expected failure, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.error;
}

export async function createAccount(baseUrl: string): Promise<Account> {
  return dataOf(await call<Account>(`${baseUrl}/api/dev/accounts`, { method: 'POST', json: {} }));
}

export async function createToken(baseUrl: string, account: Account, body: Record<string, unknown> = { name: 'test' }): Promise<CreatedToken> {
  return dataOf(
    await call<CreatedToken>(`${baseUrl}/api/settings/api-keys`, { method: 'POST', headers: { cookie: account.sessionCookie }, json: body }),
  );
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A fresh account and a read+write token: the seeded tenant of one test. */
export async function tenant(baseUrl: string, body?: Record<string, unknown>): Promise<{ account: Account; token: CreatedToken }> {
  const account = await createAccount(baseUrl);
  return { account, token: await createToken(baseUrl, account, body) };
}
