// @ars/source-host: the source-host port and its two adapters (local bare repositories, a GitHub App).
export type {
  CheckRun,
  CheckRunAnnotation,
  CheckRunConclusion,
  CheckRunOutput,
  CheckRunStatus,
  CheckRunUpdate,
  InstallationRef,
  NewCheckRun,
  NewReview,
  PullRequest,
  PullRequestFile,
  PullRequestFileStatus,
  RepositoryRef,
  ReviewComment,
  ReviewCommentDraft,
  SourceHost,
  SourceHostProvider,
  SourceHostRepository,
} from './sourceHost.js';
export { SourceHostError, kindOfStatus, type SourceHostErrorKind } from './sourceHostError.js';
export { MAX_ANNOTATIONS_PER_REQUEST, MAX_OUTPUT_TEXT, capCheckRunText } from './checkRunLimits.js';
export { commentableLines } from './diffLines.js';
export { LocalSourceHost } from './localSourceHost.js';
export type { LocalCheckRunRecord, LocalRepository, LocalSourceHostOptions, NewLocalPullRequest, NewLocalRepository } from './localSourceHost.js';
export { GitHubAppSourceHost, type GitHubAppOptions } from './githubApp.js';
