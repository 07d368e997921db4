// A test browser between the gateway and the GitHub stand-in: follows redirects by hand with one
// cookie jar (the gateway's session, GitHub's `gh_user`; a browser's cookies ignore the port, as
// here), and answers GitHub's pages as a person would — the sign-in form as `login`, "Authorize",
// the App's install page (an account, all or some repositories) — until a page of the gateway.
import { CookieJar } from './oauthBrowser.js';

export interface Visit {
  url: string;
  status: number;
  body: string;
  /** The GitHub pages answered on the way (`sign-in`, `authorize`, `install`). */
  pagesSeen: string[];
}

export interface InstallChoice {
  account: string;
  /** Only these repositories (names); all of the account's when absent. */
  repositories?: string[];
}

const decode = (text: string): string =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

export class GitHubBrowser {
  readonly jar = new CookieJar();

  constructor(
    readonly gatewayUrl: string,
    readonly githubWebUrl: string,
    readonly login: string,
  ) {}

  /** One request as a browser makes it: no redirect followed, the jar's cookies, a form with its page's Origin. */
  async go(url: string, form?: Record<string, string | string[]>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form ?? {})) for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: this.jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin } : {}) },
      ...(form ? { body: body.toString() } : {}),
    });
    this.jar.take(response);
    return response;
  }

  /** From a response, through redirects and GitHub's pages, to the first page of the gateway that is not a redirect. */
  async follow(first: Response, from: string, install?: InstallChoice): Promise<Visit> {
    let response = first;
    let url = from;
    const pagesSeen: string[] = [];
    for (let step = 0; step < 20; step += 1) {
      const location = response.headers.get('location');
      if ([301, 302, 303].includes(response.status) && location) {
        url = new URL(location, url).href;
        response = await this.go(url);
        continue;
      }
      const body = await response.text();
      if (!url.startsWith(this.githubWebUrl)) return { url, status: response.status, body, pagesSeen };
      const returnTo = decode(/name="return_to" value="([^"]*)"/.exec(body)?.[1] ?? '');
      if (body.includes('Sign in to GitHub')) {
        pagesSeen.push('sign-in');
        url = `${this.githubWebUrl}/session`;
        response = await this.go(url, { login: this.login, password: 'any', return_to: returnTo });
      } else if (/Authorize [^<]+/.test(body) && body.includes('/login/oauth/authorize/decision')) {
        pagesSeen.push('authorize');
        url = `${this.githubWebUrl}/login/oauth/authorize/decision`;
        response = await this.go(url, { authorize: '1', return_to: returnTo });
      } else if (body.includes('/installations"') && install) {
        pagesSeen.push('install');
        const action = decode(/<form method="post" action="([^"]+)"/.exec(body)?.[1] ?? '');
        const state = decode(/name="state" value="([^"]*)"/.exec(body)?.[1] ?? '');
        url = new URL(action, this.githubWebUrl).href;
        response = await this.go(url, {
          state,
          account: install.account,
          repository_selection: install.repositories ? 'selected' : 'all',
          repositories: install.repositories ?? [],
        });
      } else {
        return { url, status: response.status, body, pagesSeen };
      }
    }
    throw new Error(`the browser never came back to the gateway (last at ${url})`);
  }

  /** Sign in with GitHub, from the gateway's sign-in (GitHub its only method) to the page it ends on. */
  async signIn(): Promise<Visit> {
    const url = `${this.gatewayUrl}/auth/sign-in`;
    return this.follow(await this.go(url), url);
  }

  /** The settings page's Connect GitHub, through GitHub's install page, to the page it ends on. */
  async connect(install: InstallChoice): Promise<Visit> {
    const url = `${this.gatewayUrl}/settings/github/connect`;
    return this.follow(await this.go(url, {}), url, install);
  }

  async page(path: string): Promise<Visit> {
    const url = `${this.gatewayUrl}${path}`;
    return this.follow(await this.go(url), url);
  }

  /** Posts one of the gateway's forms (Origin, the session cookie) and follows where it leads. */
  async submit(path: string, form: Record<string, string | string[]> = {}): Promise<Visit> {
    const url = `${this.gatewayUrl}${path}`;
    return this.follow(await this.go(url, form), url);
  }
}
