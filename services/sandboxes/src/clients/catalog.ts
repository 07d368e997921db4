import type { HttpClient } from '@ars/http-client';

/** What the catalog answers for a user's repository (`clone_url` may carry a token: never log it). */
export interface CatalogRepo {
  id: string;
  full_name: string;
  default_branch: string | null;
  root_directory: string | null;
  clone_url: string;
}

/** The catalog's internal repository route, scoped to the run's user. */
export class CatalogClient {
  constructor(private readonly http: HttpClient) {}

  async repo(userId: string, repoId: string, signal?: AbortSignal): Promise<CatalogRepo> {
    const answer = await this.http.get<{ repo: CatalogRepo }>(`/users/${encodeURIComponent(userId)}/repos/${encodeURIComponent(repoId)}`, {
      ...(signal ? { signal } : {}),
      timeoutMs: 10_000,
    });
    return answer.repo;
  }
}
