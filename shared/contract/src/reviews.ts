// What pr-review and the automations engine agree on about review findings: pr-review classifies
// the findings of each review attempt and hands them to the engine, whose automation run detail
// shows them (`reviewFindings`, CONTRACT.md Automation run records).

export const REVIEW_FINDING_STATES = ['new', 'persisting', 'fixed', 'dismissed'] as const;
export type ReviewFindingState = (typeof REVIEW_FINDING_STATES)[number];

export const REVIEW_FINDING_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type ReviewFindingSeverity = (typeof REVIEW_FINDING_SEVERITIES)[number];

/** One finding of one review attempt, as the automation run detail shows it. */
export interface ReviewFinding {
  /** Line-independent: the same problem keeps it when lines shift. */
  fingerprint: string;
  state: ReviewFindingState;
  severity: ReviewFindingSeverity;
  path: string;
  /** Where it is now (null for a fixed finding: it is no longer anywhere). */
  line: number | null;
  title: string | null;
  message: string;
}

/** How many findings one automation run holds (pr-review keeps at most 100 per attempt, plus the fixed ones). */
export const MAX_REVIEW_FINDINGS = 500;

/** `PUT …/runs/:runId/review-findings`: the attempt's findings, replacing any the run held. */
export const REVIEW_FINDINGS_BODY_SCHEMA = {
  type: 'object',
  required: ['findings'],
  additionalProperties: false,
  properties: {
    findings: {
      type: 'array',
      maxItems: MAX_REVIEW_FINDINGS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['fingerprint', 'state', 'severity', 'path', 'line', 'title', 'message'],
        properties: {
          fingerprint: { type: 'string', minLength: 1, maxLength: 200 },
          state: { enum: [...REVIEW_FINDING_STATES] },
          severity: { enum: [...REVIEW_FINDING_SEVERITIES] },
          path: { type: 'string', minLength: 1, maxLength: 1_000 },
          line: { type: ['integer', 'null'], minimum: 1 },
          title: { type: ['string', 'null'], maxLength: 500 },
          message: { type: 'string', minLength: 1, maxLength: 4_000 },
        },
      },
    },
  },
} as const;
