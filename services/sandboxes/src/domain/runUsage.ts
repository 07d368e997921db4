// A run's token totals (`RunUsage`, sent in `run.finished`): the sum of its harness's usage reports,
// counted the same way for both harnesses.
import type { Harness, RunUsage } from '@ars/contract';

/**
 * A token count as it may leave this service: a non-negative safe integer (the report is the
 * harness's output, so anything else — a string, NaN, a negative or fractional number — counts 0 or
 * is rounded down).
 */
export function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return 0;
  return Math.min(Math.floor(value), Number.MAX_SAFE_INTEGER);
}

/**
 * One `usage` event's payload (the adapters' mapping, README in harness/) as run totals. Codex's
 * `input_tokens` already include its cached ones; Claude Code's exclude the cache reads
 * (`cache_read_input_tokens`, mapped to `cachedInputTokens`) and writes (`cacheWriteInputTokens`),
 * so they are added: `inputTokens` is every input token for both, `cachedInputTokens` the part read
 * from the cache, `outputTokens` the output (reasoning included, as both providers count it).
 */
export function usageOfReport(harness: Harness, payload: Record<string, unknown>): RunUsage {
  const input = tokenCount(payload.inputTokens);
  const cached = tokenCount(payload.cachedInputTokens);
  const output = tokenCount(payload.outputTokens);
  if (harness === 'claude-code')
    return { inputTokens: safeSum(input, cached, tokenCount(payload.cacheWriteInputTokens)), cachedInputTokens: cached, outputTokens: output };
  return { inputTokens: input, cachedInputTokens: Math.min(cached, input), outputTokens: output };
}

/** The totals after one more report (`total` null: the first report). */
export function addUsage(total: RunUsage | null, report: RunUsage): RunUsage {
  if (total === null) return report;
  return {
    inputTokens: safeSum(total.inputTokens, report.inputTokens),
    cachedInputTokens: safeSum(total.cachedInputTokens, report.cachedInputTokens),
    outputTokens: safeSum(total.outputTokens, report.outputTokens),
  };
}

function safeSum(...counts: number[]): number {
  return Math.min(
    counts.reduce((sum, count) => sum + count, 0),
    Number.MAX_SAFE_INTEGER,
  );
}
