/**
 * The source-host port: where an installation's repositories live and how a sandbox clones them.
 * Adapters beside it: `localSourceHost.ts` (bare git repositories on disk, for development and
 * tests) and `githubApp.ts` (a GitHub App through Octokit).
 */
export type SourceHostProvider = 'local' | 'github';

/** What the catalog knows of an installation when it asks its source host. */
export interface InstallationRef {
  /** The account (user or organisation login) the installation belongs to. */
  account: string;
  /** The source host's own installation id (GitHub's), or null for the local host. */
  externalId: number | null;
}

export interface SourceHostRepository {
  fullName: string;
  defaultBranch: string | null;
  /** The repository's plain clone URL (no credentials). */
  cloneUrl: string;
}

export interface SourceHost {
  readonly provider: SourceHostProvider;
  /** Every repository the installation can reach. */
  listRepositories(installation: InstallationRef): Promise<SourceHostRepository[]>;
  /**
   * A URL a sandbox can clone and push with. For GitHub it carries a short-lived installation access
   * token (treat it as a secret: never log it); for the local host it is the `file://` URL.
   */
  authenticatedCloneUrl(installation: InstallationRef, repository: { cloneUrl: string }): Promise<string>;
}
