// GitHub's answers as a route gives them, and its error bodies: a route throws an HttpAnswer for a
// refusal (or any answer decided early) and the server writes it like any other.

/** Where GitHub's error bodies point (`documentation_url`). */
export const DOCS = 'https://docs.github.com/rest';

/** An answer as the server writes it: a string body as it is, any other as JSON. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export class HttpAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

/** GitHub's error body: `{message, documentation_url, status}`, the status as a string. */
export const githubError = (status: number, message: string, headers: Record<string, string> = {}): HttpAnswer =>
  new HttpAnswer(status, { message, documentation_url: DOCS, status: String(status) }, headers);
export const notFound = (): HttpAnswer => githubError(404, 'Not Found');
export const invalid = (message: string, errors: unknown[] = []): HttpAnswer =>
  new HttpAnswer(422, { message, errors, documentation_url: DOCS, status: '422' });
