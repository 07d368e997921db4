// The tokens a model provider says one answer cost, read from the answer itself as the model gateway
// passes it on (never from what the CLI or the agent prints). Both APIs stream Server-Sent Events:
// - Responses (OpenAI): `response.completed` (also `.incomplete`, `.failed`) carries `response.usage`
//   {input_tokens (cached included), input_tokens_details.cached_tokens, output_tokens}.
// - Messages (Anthropic): `message_start` carries `message.usage` {input_tokens (uncached only),
//   cache_read_input_tokens, cache_creation_input_tokens, output_tokens}; each `message_delta`
//   carries `usage.output_tokens` as the answer's running total (and may repeat the input counts).
// A non-streamed answer is one JSON object with `usage` in the same shapes. An answer cut off early
// (the client left) counts what the provider had reported by then.
import type { RunUsage } from '@ars/contract';
import { tokenCount } from './runUsage.js';

export type ModelApi = 'responses' | 'messages';

/** An event larger than this is passed on but not read (a usage-bearing event is far smaller, bar `response.completed` of a huge answer). */
const EVENT_READ_LIMIT = 16 * 1024 * 1024;

export const NO_USAGE: RunUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

/** One answer's usage so far, fed the answer's bytes as they pass. */
export class ProviderUsageMeter {
  private usage: RunUsage = NO_USAGE;
  private pending = '';
  private skipping = false;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly api: ModelApi,
    private readonly format: 'sse' | 'json',
  ) {}

  /** The answer's usage as reported so far. */
  get current(): RunUsage {
    return this.usage;
  }

  /** More of the answer; returns true when the usage changed. */
  push(chunk: Uint8Array): boolean {
    const text = this.decoder.decode(chunk, { stream: true });
    if (this.format === 'json') {
      if (this.pending.length + text.length > EVENT_READ_LIMIT) this.skipping = true;
      if (!this.skipping) this.pending += text;
      return false;
    }
    return this.readEvents(text);
  }

  /** The answer ended (or was cut off): what is left is read. Returns true when the usage changed. */
  end(): boolean {
    const rest = this.decoder.decode();
    if (this.format === 'json') {
      if (this.skipping) return false;
      return this.apply(parseJson(this.pending + rest));
    }
    return this.readEvents(`${rest}\n\n`);
  }

  private readEvents(text: string): boolean {
    this.pending += text;
    let changed = false;
    for (;;) {
      const end = eventEnd(this.pending);
      if (end === null) break;
      const event = this.pending.slice(0, end.at);
      this.pending = this.pending.slice(end.at + end.length);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      changed = this.apply(parseJson(eventData(event))) || changed;
    }
    if (this.pending.length > EVENT_READ_LIMIT) {
      // Dropped until the event's end: it is passed on all the same.
      this.pending = '';
      this.skipping = true;
    }
    return changed;
  }

  private apply(message: unknown): boolean {
    const reported = this.api === 'responses' ? responsesUsage(message) : messagesUsage(message);
    if (reported === null) return false;
    const next: RunUsage = {
      inputTokens: reported.inputTokens ?? this.usage.inputTokens,
      cachedInputTokens: reported.cachedInputTokens ?? this.usage.cachedInputTokens,
      outputTokens: reported.outputTokens ?? this.usage.outputTokens,
    };
    const changed =
      next.inputTokens !== this.usage.inputTokens || next.cachedInputTokens !== this.usage.cachedInputTokens || next.outputTokens !== this.usage.outputTokens;
    this.usage = next;
    return changed;
  }
}

type ReportedUsage = Partial<RunUsage>;

/** Responses API: the usage of a finished (or cut short) response, or of a non-streamed one. */
function responsesUsage(message: unknown): ReportedUsage | null {
  if (!isObject(message)) return null;
  const response = isObject(message.response) ? message.response : message;
  const usage = response.usage;
  if (!isObject(usage)) return null;
  const input = tokenCount(usage.input_tokens);
  const details = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  return { inputTokens: input, cachedInputTokens: Math.min(tokenCount(details.cached_tokens), input), outputTokens: tokenCount(usage.output_tokens) };
}

/** Messages API: input from `message_start` (or a whole message), the running output from each `message_delta`. */
function messagesUsage(message: unknown): ReportedUsage | null {
  if (!isObject(message)) return null;
  const holder = message.type === 'message_start' && isObject(message.message) ? message.message : message;
  const usage = holder.usage;
  if (!isObject(usage)) return null;
  const reported: ReportedUsage = {};
  if ('input_tokens' in usage || 'cache_read_input_tokens' in usage || 'cache_creation_input_tokens' in usage) {
    const cacheRead = tokenCount(usage.cache_read_input_tokens);
    reported.inputTokens = safeSum(tokenCount(usage.input_tokens), cacheRead, tokenCount(usage.cache_creation_input_tokens));
    reported.cachedInputTokens = cacheRead;
  }
  if ('output_tokens' in usage) reported.outputTokens = tokenCount(usage.output_tokens);
  return reported;
}

/** `a` plus what `b` grew by over `before` (each count never going down). */
export function addGrowth(total: RunUsage, before: RunUsage, after: RunUsage): RunUsage {
  return {
    inputTokens: safeSum(total.inputTokens, Math.max(0, after.inputTokens - before.inputTokens)),
    cachedInputTokens: safeSum(total.cachedInputTokens, Math.max(0, after.cachedInputTokens - before.cachedInputTokens)),
    outputTokens: safeSum(total.outputTokens, Math.max(0, after.outputTokens - before.outputTokens)),
  };
}

/** The tokens a budget counts: every input token and every output token. */
export function budgetTokens(usage: RunUsage): number {
  return safeSum(usage.inputTokens, usage.outputTokens);
}

function eventEnd(text: string): { at: number; length: number } | null {
  const lf = text.indexOf('\n\n');
  const crlf = text.indexOf('\r\n\r\n');
  if (lf < 0 && crlf < 0) return null;
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  return { at: lf, length: 2 };
}

/** The `data:` lines of one event, joined as the SSE format says. */
function eventData(event: string): string {
  const lines: string[] = [];
  for (const line of event.split(/\r?\n/)) {
    if (line.startsWith('data:')) lines.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
  return lines.join('\n');
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function safeSum(...counts: number[]): number {
  return Math.min(
    counts.reduce((sum, count) => sum + count, 0),
    Number.MAX_SAFE_INTEGER,
  );
}
