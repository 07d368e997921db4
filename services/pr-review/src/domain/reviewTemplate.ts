// The built-in review automation: what an installation's review automation is when pr-review creates
// it on first use (start → agent with the review prompt → end), and the input an attempt triggers it
// with. The automation is the user's like any other afterwards (listed, editable, republished).
import type { FlowGraph } from '@ars/automations-engine/client';
import { FINDINGS_FORMAT_INSTRUCTIONS } from './findingsFormat.js';

export const REVIEW_AUTOMATION_NAME = 'Pull request review';
export const REVIEW_AUTOMATION_DESCRIPTION = 'Reviews a pull request and reports findings; created by pr-review on first use.';

/**
 * The most of a diff and of `.ars/review.md` a review prompt carries: with the template's own text
 * the rendered prompt stays under the runs service's 100,000 characters.
 */
export const REVIEW_INPUT_LIMITS = { diff: 70_000, instructions: 10_000, title: 500 } as const;

/** What an attempt triggers the review automation with (the start node's `inputSchema` below). */
export interface ReviewInput {
  prNumber: number;
  title: string;
  headRef: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  /** The pull request's unified diff, cut to REVIEW_INPUT_LIMITS.diff (`diffTruncated` says so). */
  diff: string;
  diffTruncated: boolean;
  /** The repository's `.ars/review.md` at the head, or '' without one. */
  instructions: string;
}

export const REVIEW_INPUT_SCHEMA = {
  type: 'object',
  required: ['prNumber', 'title', 'headRef', 'headSha', 'baseRef', 'baseSha', 'diff', 'diffTruncated', 'instructions'],
  properties: {
    prNumber: { type: 'integer', minimum: 1 },
    title: { type: 'string', maxLength: REVIEW_INPUT_LIMITS.title },
    headRef: { type: 'string', minLength: 1 },
    headSha: { type: 'string', minLength: 1 },
    baseRef: { type: 'string', minLength: 1 },
    baseSha: { type: 'string', minLength: 1 },
    diff: { type: 'string', maxLength: REVIEW_INPUT_LIMITS.diff },
    diffTruncated: { type: 'boolean' },
    instructions: { type: 'string', maxLength: REVIEW_INPUT_LIMITS.instructions },
  },
} as const;

/** The review prompt: CEL interpolations of the input (the engine renders them), then the findings format. */
export const REVIEW_PROMPT = [
  'Review pull request #{{ input.prNumber }} "{{ input.title }}": {{ input.headRef }} ({{ input.headSha }}) into {{ input.baseRef }}.',
  'The working tree is the pull request’s head. Read the changed code and report real problems only: bugs, security issues,',
  'data loss, broken contracts. Do not change any file.',
  '',
  'The repository’s review instructions (.ars/review.md; empty when it has none):',
  '{{ input.instructions }}',
  '',
  'The diff{{ input.diffTruncated ? " (cut: read the rest in the working tree)" : "" }}:',
  '{{ input.diff }}',
  '',
  FINDINGS_FORMAT_INSTRUCTIONS,
].join('\n');

/** The graph of a new review automation, its agent node bound to `agentId`. */
export function reviewAutomationGraph(agentId: string): FlowGraph {
  return {
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: { inputSchema: REVIEW_INPUT_SCHEMA } },
      { id: 'review', type: 'agent', position: { x: 250, y: 0 }, data: { agentId, prompt: REVIEW_PROMPT } },
      { id: 'end', type: 'end', position: { x: 500, y: 0 }, data: {} },
    ],
    edges: [
      { id: 'start-review', source: 'start', target: 'review' },
      { id: 'review-end', source: 'review', target: 'end' },
    ],
    viewport: { x: 0, y: 0, zoom: 1 },
  };
}

/** The input of an attempt: the diff and instructions cut to their limits (a prompt never grows past the runs service's bound). */
export function reviewInput(pullRequest: Omit<ReviewInput, 'diff' | 'diffTruncated' | 'instructions'>, diff: string, instructions: string | null): ReviewInput {
  return {
    ...pullRequest,
    title: pullRequest.title.slice(0, REVIEW_INPUT_LIMITS.title),
    diff: diff.slice(0, REVIEW_INPUT_LIMITS.diff),
    diffTruncated: diff.length > REVIEW_INPUT_LIMITS.diff,
    instructions: (instructions ?? '').slice(0, REVIEW_INPUT_LIMITS.instructions),
  };
}
