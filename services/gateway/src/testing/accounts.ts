// Accounts through the development account route, tokens through the PAT lifecycle routes: HTTP only.
import { fetchAnswer as call, type Answer } from '@ars/testenv';

export interface Account {
  userId: string;
  sessionCookie: string;
  /** A one-time link (10 minutes) that signs a browser in as this account. */
  signInUrl: string;
  installationId: number;
  repos: { id: string; full_name: string; default_branch: string | null }[];
  /** Asked with `{pullRequest: true}`: an open pull request on the first repository, its first review's check run linked. */
  pullRequest?: { repoId: string; number: number; headSha: string; checkRunId: number | null; attemptId: string; automationId: string };
}

export interface CreatedToken {
  id: string;
  token: string;
  prefix: string;
  scopes: string[];
  expiresAt: string | null;
}

// Public routes answer in the same envelope as internal ones: one reader, the kit's.
export { call };
export type { Answer };

export function dataOf<T>(answer: Answer<T>): T {
  if (!answer.body.ok) throw new Error(`expected success, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

export function errorOf(answer: Answer): { code: string; message: string } {
  if (answer.body.ok) throw new Error(`expected failure, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.error;
}

/** `body` as POST /api/dev/accounts takes it (`{pullRequest: true}` for a reviewed pull request). */
export async function createAccount(baseUrl: string, body: Record<string, unknown> = {}): Promise<Account> {
  return dataOf(await call<Account>(`${baseUrl}/api/dev/accounts`, { method: 'POST', json: body }));
}

export async function createToken(baseUrl: string, account: Account, body: Record<string, unknown> = { name: 'test' }): Promise<CreatedToken> {
  return dataOf(await call<CreatedToken>(`${baseUrl}/api/settings/api-keys`, { method: 'POST', headers: { cookie: account.sessionCookie }, json: body }));
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A fresh account and a read+write token: the seeded tenant of one test. */
export async function tenant(baseUrl: string, body?: Record<string, unknown>): Promise<{ account: Account; token: CreatedToken }> {
  const account = await createAccount(baseUrl);
  return { account, token: await createToken(baseUrl, account, body) };
}
