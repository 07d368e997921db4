// What the benchmarks share: a user of the gateway with PATs taken in turn, JSON calls, percentiles.

interface Envelope<T> {
  ok: boolean;
  data: T;
  error?: { code: string; message: string };
}

export async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; data: T }> {
  const response = await fetch(url, init);
  const body = (await response.json()) as Envelope<T>;
  if (!body.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body.error)}`);
  return { status: response.status, data: body.data };
}

/** Each PAT may make 60 requests a minute: a user polls with several, in turn. */
export interface User {
  tokens: string[];
  turn: number;
  repoId: string;
}

export function tokenOf(user: User): string {
  user.turn = (user.turn + 1) % user.tokens.length;
  return user.tokens[user.turn] ?? '';
}

export async function newUser(baseUrl: string, tokenCount = 10): Promise<User> {
  const account = (
    await json<{ sessionCookie: string; repos: { id: string }[] }>(`${baseUrl}/api/dev/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  ).data;
  const tokens: string[] = [];
  for (let i = 0; i < tokenCount; i += 1) {
    const created = (
      await json<{ token: string }>(`${baseUrl}/api/settings/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: account.sessionCookie },
        body: JSON.stringify({ name: `bench-${i}` }),
      })
    ).data;
    tokens.push(created.token);
  }
  return { tokens, turn: 0, repoId: account.repos[0]?.id ?? '' };
}

export const percentile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
