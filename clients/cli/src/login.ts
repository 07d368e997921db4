import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { exchangeLoginCode, type LoginToken } from './api.js';
import { CliError } from './output.js';

/** The browser login of `ars` (gateway README, "CLI login"): PKCE and state, the loopback listener, the browser. */

export interface Pkce {
  verifier: string;
  challenge: string;
}

/** RFC 7636: a 43-character verifier from 32 random bytes; the challenge is its base64url SHA-256. */
export function pkcePair(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier, 'ascii').digest('base64url') };
}

export function loginUrl(baseUrl: string, request: { redirectUri: string; state: string; challenge: string; scopes: string; clientName: string }): string {
  const url = new URL(`${baseUrl}/cli/login`);
  url.searchParams.set('redirect_uri', request.redirectUri);
  url.searchParams.set('state', request.state);
  url.searchParams.set('code_challenge', request.challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('client_name', request.clientName);
  url.searchParams.set('scopes', request.scopes);
  return url.href;
}

export function defaultClientName(): string {
  return `ars on ${hostname()}`;
}

/** The platform's opener, detached: a missing one is no failure (the URL is printed anyway). */
export function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is on the terminal: the user opens it by hand.
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the browser shows after the redirect: the answer, then the terminal takes over. */
function answerPage(response: ServerResponse, status: number, title: string, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'referrer-policy': 'no-referrer',
  });
  response.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>
</head><body><h1 id="result">${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`);
}

export interface LoginOptions {
  baseUrl: string;
  scopes: string;
  clientName: string;
  timeoutMs: number;
  /** Told the URL once the listener is up (printed, and opened unless --no-browser). */
  onUrl(url: string): void;
}

/**
 * Listens on 127.0.0.1 (a random port) for the one redirect of this login; answers the browser and
 * resolves with the new token, or rejects: `ACCESS_DENIED`, `STATE_MISMATCH` (nothing is exchanged),
 * `LOGIN_TIMEOUT`, or the exchange's error. The listener is closed either way.
 */
export async function browserLogin(options: LoginOptions): Promise<LoginToken> {
  const state = randomBytes(24).toString('base64url');
  const pkce = pkcePair();
  let settle!: { resolve: (token: LoginToken) => void; reject: (error: Error) => void };
  const done = new Promise<LoginToken>((resolve, reject) => (settle = { resolve, reject }));
  let redirectUri = '';
  let answered = false;

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== '/callback') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    if (answered) return answerPage(response, 409, 'Already answered', 'This login has already been answered; look at your terminal.');
    answered = true;
    const query = url.searchParams;
    if (query.get('state') !== state) {
      answerPage(
        response,
        400,
        'Login refused',
        'This answer does not belong to the login your terminal started (state mismatch). Nothing was stored. Run ars login again.',
      );
      return settle.reject(new CliError('STATE_MISMATCH', 'The browser answered with another state; nothing was stored. Run ars login again.'));
    }
    const error = query.get('error');
    if (error) {
      answerPage(response, 200, 'Access denied', 'You denied access; the command line got no token. You can close this tab.');
      return settle.reject(
        new CliError(error === 'access_denied' ? 'ACCESS_DENIED' : error.toUpperCase(), 'Access was denied in the browser; nothing was stored.'),
      );
    }
    const code = query.get('code');
    if (!code) {
      answerPage(response, 400, 'Login failed', 'The answer carried no code. Run ars login again.');
      return settle.reject(new CliError('BAD_REQUEST', 'The browser answered without a code'));
    }
    exchangeLoginCode({ baseUrl: options.baseUrl, code, codeVerifier: pkce.verifier, redirectUri }).then(
      (token) => {
        answerPage(response, 200, 'Signed in', 'The ars command line is signed in. You can close this tab and go back to your terminal.');
        settle.resolve(token);
      },
      (failure: unknown) => {
        answerPage(response, 502, 'Login failed', 'The code could not be exchanged for a token; look at your terminal.');
        settle.reject(failure as Error);
      },
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const timer = setTimeout(
    () => settle.reject(new CliError('LOGIN_TIMEOUT', `No answer from the browser within ${Math.round(options.timeoutMs / 1000)} s; run ars login again.`)),
    options.timeoutMs,
  );
  try {
    options.onUrl(loginUrl(options.baseUrl, { redirectUri, state, challenge: pkce.challenge, scopes: options.scopes, clientName: options.clientName }));
    return await done;
  } finally {
    clearTimeout(timer);
    // The answer page is on its way: idle keep-alive connections go now, a slow one after 2 s.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 2000);
    await closed;
    clearTimeout(force);
  }
}
