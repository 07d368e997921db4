// What the REST routes (src/routes/) share: the route table's type, what a route is given, and what
// GitHub does alike on every path: the token's installation and its reach, JSON bodies, pages.
import type { KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AppInstallations } from './appInstallations.js';
import { githubError, notFound, type Answer } from './httpAnswer.js';
import type { StandInPullRequest } from './records.js';
import type { HostedRepository, StandInState } from './state.js';

/** What the routes work with: the state, the App (its id and public key) and its installations. */
export interface StandInDeps {
  state: StandInState;
  appId: string;
  publicKey: KeyObject;
  appInstallations: AppInstallations;
}

/** What a route is given besides its path's groups: the request and the stand-in. */
export interface RouteContext extends StandInDeps {
  req: IncomingMessage;
  url: URL;
  /** The installation of the request's token (`Authorization: token|Bearer`); 401 `Bad credentials` without a minted one. */
  installationId: () => number;
}

/** A route: its method, its path pattern, and what answers it given the pattern's groups (decoded). */
export type Route = [method: string, path: RegExp, answer: (params: string[], context: RouteContext) => Promise<Answer>];

/** The installation an installation access token was minted for. */
export function tokenInstallation(state: StandInState, authorization: string): number {
  const token = /^(?:token|bearer) (.+)$/i.exec(authorization)?.[1];
  const grant = state.minted.find((m) => m.token === token);
  if (!grant) throw githubError(401, 'Bad credentials');
  return grant.installationId;
}

/** The repository of the path's `{owner}/{repo}`, when the token's installation reaches it (GitHub answers 404 otherwise). */
export function reachableRepository(params: string[], context: RouteContext): HostedRepository {
  const installationId = context.installationId();
  const owner = params[1] ?? '';
  const name = params[2] ?? '';
  const hosted = (context.state.installations.get(installationId) ?? []).find(
    (h) => h.repo.owner.toLowerCase() === owner.toLowerCase() && h.repo.name.toLowerCase() === name.toLowerCase(),
  );
  if (!hosted) throw notFound();
  return hosted;
}

/** The repository's pull request; 404 when it has none of that number. */
export function pullRequestOf(hosted: HostedRepository, number: number): StandInPullRequest {
  const pr = hosted.pulls.find((p) => p.number === number);
  if (!pr) throw notFound();
  return pr;
}

/** The request's JSON object (none: `{}`); anything else is GitHub's 400 `Problems parsing JSON`. */
export async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw githubError(400, 'Problems parsing JSON');
}

/** The page `per_page` (default 30, at most 100) and `page` ask for, with GitHub's `Link` header. */
export function page<T>({ url, state }: Pick<RouteContext, 'url' | 'state'>, items: T[]): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.max(1, Math.min(100, Number(url.searchParams.get('per_page') ?? 30)));
  const number = Math.max(1, Number(url.searchParams.get('page') ?? 1));
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const at = (p: number) => {
    const next = new URL(url.toString());
    next.searchParams.set('page', String(p));
    return `<${state.baseUrl}${next.pathname}${next.search}>`;
  };
  const links = [
    ...(number < last ? [`${at(number + 1)}; rel="next"`, `${at(last)}; rel="last"`] : []),
    ...(number > 1 ? [`${at(1)}; rel="first"`, `${at(number - 1)}; rel="prev"`] : []),
  ];
  const headers: Record<string, string> = links.length > 0 ? { link: links.join(', ') } : {};
  return { items: items.slice((number - 1) * perPage, number * perPage), headers };
}
