// Review findings. The findings format: how a review agent's final message carries its findings, so
// that the agent's side (the stand-in harnesses of sandboxes) and the reader (pr-review's domain,
// parseFindings) agree. And a classified finding (ReviewFinding): what pr-review hands the automations
// engine for the run detail.

import type { FromSchema } from 'json-schema-to-ts';

/** The info string of the fenced block holding the findings: ```` ```ars-findings ````. */
export const FINDINGS_FENCE = 'ars-findings';

/** The severities a finding may have, most severe first. */
export const FINDING_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

/** Bounds of one block: at most this many findings are read (the rest are listed as problems). */
export const MAX_FINDINGS = 100;
export const MAX_FINDING_MESSAGE_LENGTH = 4_000;
export const MAX_FINDING_PATH_LENGTH = 1_000;
export const MAX_FINDING_TITLE_LENGTH = 200;
export const MAX_FINDING_RULE_ID_LENGTH = 100;
export const MAX_FINDING_ANCHOR_LENGTH = 1_000;

/**
 * One finding as the agent reports it: `line` (1-based) to `endLine` (inclusive, default `line`) of
 * `path` (relative to the repository root). `anchor` is the text of the code it points at, as the
 * agent read it (optional).
 */
export interface ReportedFinding {
  path: string;
  line: number;
  endLine?: number;
  severity: FindingSeverity;
  title?: string;
  message: string;
  ruleId?: string;
  anchor?: string;
}

/** JSON Schema of one `ReportedFinding` (the block holds a JSON array of them). */
export const REPORTED_FINDING_SCHEMA = {
  type: 'object',
  required: ['path', 'line', 'severity', 'message'],
  additionalProperties: false,
  properties: {
    path: { type: 'string', minLength: 1, maxLength: MAX_FINDING_PATH_LENGTH },
    line: { type: 'integer', minimum: 1 },
    endLine: { type: 'integer', minimum: 1 },
    severity: { enum: [...FINDING_SEVERITIES] },
    title: { type: 'string', maxLength: MAX_FINDING_TITLE_LENGTH },
    message: { type: 'string', minLength: 1, maxLength: MAX_FINDING_MESSAGE_LENGTH },
    ruleId: { type: 'string', minLength: 1, maxLength: MAX_FINDING_RULE_ID_LENGTH },
    anchor: { type: 'string', maxLength: MAX_FINDING_ANCHOR_LENGTH },
  },
} as const;

/** What a finding is in one review attempt against the one before (pr-review's classification). */
export const FINDING_STATES = ['new', 'persisting', 'fixed', 'dismissed'] as const;
export type FindingState = (typeof FINDING_STATES)[number];

/**
 * One finding of one review attempt as the automation run detail shows it (`reviewFindings`):
 * pr-review classifies each attempt's findings and hands them to the automations engine.
 */
export const REVIEW_FINDING_SCHEMA = {
  type: 'object',
  required: ['fingerprint', 'state', 'severity', 'path', 'line', 'title', 'message'],
  additionalProperties: false,
  properties: {
    fingerprint: { type: 'string', description: 'Line-independent: the same problem keeps it when lines shift.' },
    state: { type: 'string', enum: FINDING_STATES },
    severity: { type: 'string', enum: FINDING_SEVERITIES },
    path: { type: 'string' },
    line: { type: ['integer', 'null'], description: 'Where it is now (null for a fixed finding: it is no longer anywhere).' },
    title: { type: ['string', 'null'] },
    message: { type: 'string' },
  },
} as const;
export type ReviewFinding = FromSchema<typeof REVIEW_FINDING_SCHEMA>;

/** How many findings one automation run holds (at most MAX_FINDINGS reported per attempt, plus the fixed ones). */
export const MAX_REVIEW_FINDINGS = 500;

/** `PUT …/runs/:runId/review-findings` (automations engine, internal): the attempt's findings, replacing any the run held. */
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
          state: { enum: [...FINDING_STATES] },
          severity: { enum: [...FINDING_SEVERITIES] },
          path: { type: 'string', minLength: 1, maxLength: MAX_FINDING_PATH_LENGTH },
          line: { type: ['integer', 'null'], minimum: 1 },
          title: { type: ['string', 'null'], maxLength: MAX_FINDING_TITLE_LENGTH },
          message: { type: 'string', minLength: 1, maxLength: MAX_FINDING_MESSAGE_LENGTH },
        },
      },
    },
  },
} as const;

const nullableString = { type: ['string', 'null'] } as const;

/** CONTRACT.md, PR review rerun result (`RerunPrReviewData`); each field's meaning is in the pr-review README. */
export const RERUN_PR_REVIEW_DATA_SCHEMA = {
  type: 'object',
  required: [
    'queued',
    'jobRunId',
    'prNumber',
    'repoId',
    'started',
    'deferred',
    'reason',
    'status',
    'runtimeProvider',
    'runtimeRunId',
    'workflowRunId',
    'versionFallbackUsed',
  ],
  additionalProperties: false,
  properties: {
    queued: { type: 'boolean' },
    jobRunId: nullableString,
    prNumber: { type: 'number' },
    repoId: { type: 'string' },
    started: { type: 'boolean' },
    deferred: { type: 'boolean' },
    reason: nullableString,
    status: nullableString,
    runtimeProvider: nullableString,
    runtimeRunId: nullableString,
    workflowRunId: nullableString,
    versionFallbackUsed: { type: 'boolean' },
  },
} as const;
export type RerunPrReviewData = FromSchema<typeof RERUN_PR_REVIEW_DATA_SCHEMA>;
