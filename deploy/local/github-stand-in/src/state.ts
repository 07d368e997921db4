// The stand-in's state, no HTTP: the repositories each installation hosts and all GitHub keeps of
// them, the installation tokens minted, the JWTs and requests seen, and the ids it gives.
import type { AppJwtCheck } from './appJwt.js';
import type { StandInCheckRun, StandInPullRequest, StandInRepository, StandInReview, StandInReviewComment } from './records.js';

export interface HostedRepository {
  installationId: number;
  id: number;
  repo: StandInRepository;
  pulls: StandInPullRequest[];
  checkRuns: StandInCheckRun[];
  reviews: StandInReview[];
  comments: StandInReviewComment[];
  /** Every head and base SHA its pull requests have had: the commits it knows (an old head stays known after a push). */
  commits: Set<string>;
  /** The files of the commits given them (`setCommitFiles`), by SHA, then by path. */
  trees: Map<string, Map<string, string>>;
}

export const fullNameOf = (hosted: HostedRepository): string => `${hosted.repo.owner}/${hosted.repo.name}`;

export class StandInState {
  /** The repositories each installation hosts, by installation id. */
  readonly installations = new Map<number, HostedRepository[]>();
  /** Installation access tokens minted, in order. */
  readonly minted: { installationId: number; token: string }[] = [];
  /** Every App JWT presented, with what the check found. */
  readonly jwts: AppJwtCheck[] = [];
  /** Requests seen, `METHOD path?query`. */
  readonly requests: string[] = [];
  /** The server's base URL (the `url` fields of GitHub's JSON), known once it listens. */
  baseUrl = '';
  private lastId = 0;
  private repositoryCount = 0;

  /** `botLogin`: the App's bot, which writes the check runs, reviews and comments. */
  constructor(readonly botLogin: string) {}

  /** The next id of a check run, review or review comment (one sequence for them all). */
  nextId(): number {
    this.lastId += 1;
    return this.lastId;
  }

  /** The repositories join the installation (after those it has). */
  host(installationId: number, repositories: StandInRepository[]): void {
    const hosted = this.installations.get(installationId) ?? [];
    for (const repo of repositories) {
      this.repositoryCount += 1;
      hosted.push({
        installationId,
        // GitHub's repository id: never reused, also after a repository left the installation.
        id: installationId * 100_000 + this.repositoryCount,
        repo,
        pulls: [],
        checkRuns: [],
        reviews: [],
        comments: [],
        commits: new Set(),
        trees: new Map(),
      });
    }
    this.installations.set(installationId, hosted);
  }

  /** The repository `owner/name` (in any case), whichever installation hosts it. */
  hostedRepository(fullName: string): HostedRepository {
    for (const hosted of this.installations.values()) {
      const found = hosted.find((h) => fullNameOf(h).toLowerCase() === fullName.toLowerCase());
      if (found) return found;
    }
    throw new Error(`the stand-in has no repository ${fullName}`);
  }

  pullOf(fullName: string, number: number): { hosted: HostedRepository; pr: StandInPullRequest } {
    const hosted = this.hostedRepository(fullName);
    const pr = hosted.pulls.find((p) => p.number === number);
    if (!pr) throw new Error(`the stand-in has no pull request ${fullName}#${number}`);
    return { hosted, pr };
  }
}
