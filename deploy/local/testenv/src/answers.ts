/** The JSON envelope every route of the system answers with. */
export type Envelope<T> = { ok: true; data: T } | { ok: false; error: { code: string; message: string } };

/** An HTTP answer as tests read it. */
export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  /** The parsed envelope (undefined at run time for an empty body, e.g. a 204). */
  body: Envelope<T>;
  text: string;
  /** The data of a success envelope (throws on anything else, naming the request and the answer). */
  readonly data: T;
}

export type AnswerRequest = RequestInit & {
  /** Sent as the JSON body, with `content-type: application/json`. */
  json?: unknown;
};

/** One HTTP request, its answer read as the system's envelope. */
export async function fetchAnswer<T = unknown>(url: string, init: AnswerRequest = {}): Promise<Answer<T>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { ...init, headers, body });
  const text = await response.text();
  const parsed = (text === '' ? undefined : JSON.parse(text)) as Envelope<T>;
  const what = `${init.method ?? 'GET'} ${url}`;
  const answer = { status: response.status, headers: response.headers, body: parsed, text };
  // Not enumerable: an answer compared whole (toEqual) or printed does not read it, and so throw.
  return Object.defineProperty(answer, 'data', {
    enumerable: false,
    get(): T {
      if (!parsed?.ok) throw new Error(`${what} failed: ${response.status} ${text}`);
      return parsed.data;
    },
  }) as Answer<T>;
}

export interface InternalCallerOptions {
  /** The service's base URL (a function when the service under test is restarted on another port). */
  url: string | (() => string);
  /** The `INTERNAL_TOKEN` the service was started with. */
  token: string;
  /** `X-Caller-Service`: the peer the test plays. */
  caller: string;
}

/** `headers` replaces the default `X-Internal-Token` (a test leaves it out or spells a wrong one on purpose). */
export type InternalCall = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer<T>>;

/** Calls a service's internal routes (`/internal/…`) as another service would. */
export function internalCaller(options: InternalCallerOptions): InternalCall {
  const baseUrl = typeof options.url === 'string' ? () => options.url as string : options.url;
  return (method, path, body, headers = { 'x-internal-token': options.token }) =>
    fetchAnswer(`${baseUrl()}${path}`, { method, headers: { ...headers, 'x-caller-service': options.caller }, json: body });
}
