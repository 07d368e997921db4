// The run's token totals from both harnesses' real usage formats, through the adapters' mapping.
import { ClaudeStreamMapper, mapCodexEvent, newTurnState, type HarnessEvent } from '@ars/harnesses';
import { addUsage, tokenCount, usageOfReport } from './runUsage.js';

function codexUsageEvent(usage: Record<string, unknown>): HarnessEvent {
  const mapped = mapCodexEvent({ type: 'turn.completed', usage }, '/w', newTurnState());
  if (mapped === 'start') throw new Error('turn.completed is not a start');
  const event = mapped.find((e) => e.type === 'usage');
  if (!event) throw new Error('turn.completed gave no usage event');
  return event;
}

function claudeUsageEvent(usage: Record<string, unknown>): HarnessEvent {
  const mapper = new ClaudeStreamMapper('/w');
  const event = mapper
    .map({ type: 'result', subtype: 'success', is_error: false, result: 'ok', num_turns: 1, duration_ms: 5, total_cost_usd: 0.01, usage })
    .find((e) => e.type === 'usage');
  if (!event) throw new Error('result gave no usage event');
  return event;
}

describe('codex usage: turn.completed input_tokens (cached included), cached_input_tokens, output_tokens', () => {
  test('input_tokens already hold the cached ones: the totals are taken as reported', () => {
    const event = codexUsageEvent({ input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 122, reasoning_output_tokens: 64 });
    expect(usageOfReport('codex', event.payload)).toEqual({ inputTokens: 24763, cachedInputTokens: 24448, outputTokens: 122 });
  });

  test('missing fields count 0; cached never exceeds the input it is part of', () => {
    expect(usageOfReport('codex', codexUsageEvent({ output_tokens: 3 }).payload)).toEqual({ inputTokens: 0, cachedInputTokens: 0, outputTokens: 3 });
    expect(usageOfReport('codex', codexUsageEvent({ input_tokens: 5, cached_input_tokens: 9 }).payload)).toEqual({
      inputTokens: 5,
      cachedInputTokens: 5,
      outputTokens: 0,
    });
  });
});

describe('Claude Code usage: result input_tokens (cache excluded), cache_read/cache_creation_input_tokens, output_tokens', () => {
  test('cache reads and writes are added to the input; cache reads are the cached part', () => {
    const event = claudeUsageEvent({ input_tokens: 12, cache_read_input_tokens: 3000, cache_creation_input_tokens: 500, output_tokens: 40 });
    expect(usageOfReport('claude-code', event.payload)).toEqual({ inputTokens: 3512, cachedInputTokens: 3000, outputTokens: 40 });
  });

  test('a result with only input and output tokens (as HARNESSES.md shows it)', () => {
    expect(usageOfReport('claude-code', claudeUsageEvent({ input_tokens: 12, output_tokens: 40 }).payload)).toEqual({
      inputTokens: 12,
      cachedInputTokens: 0,
      outputTokens: 40,
    });
  });
});

describe('usage is sanitized to numbers only: non-negative safe integers', () => {
  test('strings, NaN, infinities, negatives and objects count 0; fractions are rounded down; huge values are capped', () => {
    for (const bad of ['12', Number.NaN, Number.POSITIVE_INFINITY, -5, { n: 1 }, null, undefined]) expect(tokenCount(bad)).toBe(0);
    expect(tokenCount(7.9)).toBe(7);
    expect(tokenCount(2 ** 60)).toBe(Number.MAX_SAFE_INTEGER);
    expect(usageOfReport('claude-code', { inputTokens: '9', cachedInputTokens: -1, outputTokens: 2.5, extra: 'ignored' })).toEqual({
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 2,
    });
  });
});

describe('a run total is the sum of its usage reports', () => {
  test('reports add up field by field; the first report is the total', () => {
    const first = { inputTokens: 10, cachedInputTokens: 4, outputTokens: 2 };
    expect(addUsage(null, first)).toEqual(first);
    expect(addUsage(first, { inputTokens: 5, cachedInputTokens: 1, outputTokens: 3 })).toEqual({ inputTokens: 15, cachedInputTokens: 5, outputTokens: 5 });
    const huge = { inputTokens: Number.MAX_SAFE_INTEGER, cachedInputTokens: 0, outputTokens: 0 };
    expect(addUsage(huge, huge).inputTokens).toBe(Number.MAX_SAFE_INTEGER);
  });
});
