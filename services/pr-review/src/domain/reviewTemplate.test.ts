import { MAX_PROMPT_LENGTH } from '@ars/contract';
import { FINDINGS_FORMAT_INSTRUCTIONS } from './findingsFormat.js';
import { REVIEW_INPUT_LIMITS, REVIEW_PROMPT, reviewAutomationGraph, reviewInput } from './reviewTemplate.js';

const pullRequest = { prNumber: 7, title: 'Add login', headRef: 'feature/login', headSha: 'a'.repeat(40), baseRef: 'main', baseSha: 'b'.repeat(40) };

describe('the review automation is start → agent (the review prompt) → end, its agent bound to the given agent', () => {
  test('three nodes in a line; the start node’s inputSchema names every input; the prompt ends with the findings format', () => {
    const graph = reviewAutomationGraph('agent-1');
    expect(graph.nodes.map((node) => [node.id, node.type])).toEqual([
      ['start', 'start'],
      ['review', 'agent'],
      ['end', 'end'],
    ]);
    expect(graph.edges.map((edge) => [edge.source, edge.target])).toEqual([
      ['start', 'review'],
      ['review', 'end'],
    ]);
    expect(graph.nodes[1]?.data).toEqual({ agentId: 'agent-1', prompt: REVIEW_PROMPT });
    expect(REVIEW_PROMPT.endsWith(FINDINGS_FORMAT_INSTRUCTIONS)).toBe(true);
  });
});

describe('an attempt’s input is cut to its limits, so the rendered prompt stays within the runs service’s bound', () => {
  test('a 200,000-character diff is cut to 70,000 and marked; instructions to 10,000; none is null', () => {
    const input = reviewInput(pullRequest, 'd'.repeat(200_000), 'i'.repeat(50_000));
    expect([input.diff.length, input.diffTruncated, input.instructions.length]).toEqual([REVIEW_INPUT_LIMITS.diff, true, REVIEW_INPUT_LIMITS.instructions]);
    expect(reviewInput(pullRequest, 'small diff', null)).toMatchObject({ diff: 'small diff', diffTruncated: false, instructions: '' });
  });

  test('the longest input rendered into the prompt (refs of 255 characters) is under MAX_PROMPT_LENGTH', () => {
    const longest = REVIEW_PROMPT.length + REVIEW_INPUT_LIMITS.diff + REVIEW_INPUT_LIMITS.instructions + REVIEW_INPUT_LIMITS.title + 3 * 255 + 2 * 64 + 100;
    expect(longest).toBeLessThan(MAX_PROMPT_LENGTH);
  });
});
