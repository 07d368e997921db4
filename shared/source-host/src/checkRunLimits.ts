/** GitHub's limits on a check run's output, which both adapters keep. */
export const MAX_ANNOTATIONS_PER_REQUEST = 50;
export const MAX_OUTPUT_TEXT = 65_535;

const CUT_MARK = '\n\n… (cut at 65,535 characters)';

/** `summary` and `text` at most 65,535 characters: a longer one is cut and says so at its end. */
export function capCheckRunText(text: string): string {
  if (text.length <= MAX_OUTPUT_TEXT) return text;
  return text.slice(0, MAX_OUTPUT_TEXT - CUT_MARK.length) + CUT_MARK;
}

/** Items in consecutive batches of `size` (at least one batch, possibly empty). */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches.length === 0 ? [[]] : batches;
}
