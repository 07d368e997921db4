/** `POST …/pr-reviews/rerun` and `POST …/pr-reviews/reviews`: CONTRACT.md, POST /pr-reviews/rerun. */
export interface PullRequestBody {
  repoId: string;
  prNumber: number;
}

export const PULL_REQUEST_BODY_SCHEMA = {
  type: 'object',
  required: ['repoId', 'prNumber'],
  properties: {
    repoId: { type: 'string', minLength: 1, maxLength: 200 },
    prNumber: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
  },
} as const;
