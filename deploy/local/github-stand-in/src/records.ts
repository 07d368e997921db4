// The records the stand-in keeps of what it hosts (GitHub's field names where GitHub answers them):
// repositories, pull requests and their files, check runs and annotations, reviews and review comments.

export interface StandInRepository {
  owner: string;
  name: string;
  defaultBranch: string;
  /**
   * The repository's `clone_url` wherever it is answered (e.g. the `file://` URL of a local bare
   * repository, so a sandbox can really clone it); default `https://github.com/<owner>/<name>.git`.
   */
  cloneUrl?: string;
}

/** A changed file of a pull request, GitHub's names; additions and deletions are counted from the patch when left out. */
export interface StandInPullRequestFile {
  filename: string;
  status?: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';
  previous_filename?: string;
  additions?: number;
  deletions?: number;
  /** The hunks from the first `@@`; null for a binary file. */
  patch: string | null;
}

export interface NewStandInPullRequest {
  title: string;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  files: StandInPullRequestFile[];
  /** The author's login; default `octocat`. */
  user?: string;
}

export interface StandInPullRequest {
  number: number;
  title: string;
  state: 'open' | 'closed';
  merged: boolean;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  files: Required<Omit<StandInPullRequestFile, 'previous_filename'>>[];
  user: string;
}

export interface StandInAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

export interface StandInCheckRun {
  id: number;
  name: string;
  head_sha: string;
  external_id: string | null;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  details_url: string | null;
  started_at: string;
  completed_at: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: StandInAnnotation[];
  /** Requests that carried annotations, and how many each carried. */
  annotationBatches: number[];
}

export interface StandInReview {
  id: number;
  pull_number: number;
  commit_id: string;
  body: string;
  event: string;
  state: string;
  user: string;
}

export interface StandInReviewComment {
  id: number;
  pull_number: number;
  pull_request_review_id: number | null;
  commit_id: string;
  path: string;
  line: number | null;
  side: 'RIGHT' | 'LEFT';
  body: string;
  in_reply_to_id: number | null;
  user: string;
  created_at: string;
  updated_at: string;
}
