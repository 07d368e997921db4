/** The consent page's HTML: plain server-rendered forms, no script (the page works with scripting off). */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

export const SCOPE_WORDS: Record<string, string> = {
  read: 'read your repositories, runs, sandboxes, automations and tool servers',
  write: 'start and cancel agent runs, create sandboxes, change and trigger automations, re-run PR reviews',
};

/** The gateway's pages' one frame: title, the shared look, no script. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem}code{background:#f3f3f3;padding:0 .25rem}</style>
</head><body>${body}</body></html>`;
}

export interface ConsentView {
  uid: string;
  /** How the client is named to the user: the `client_id` host for a metadata-document client (its name is self-asserted), else its registered name. */
  clientLabel: string;
  /** The client's own name when it differs from the label (shown as a claim, not as who it is). */
  claimedName: string | undefined;
  redirectUri: string | undefined;
  scopes: readonly string[];
}

export function consentPageHtml(view: ConsentView): string {
  const scopes = view.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</li>`).join('');
  const claimed = view.claimedName ? `<p>It calls itself “${escapeHtml(view.claimedName)}”.</p>` : '';
  const redirect = view.redirectUri ? `<p>After your answer you return to <code>${escapeHtml(view.redirectUri)}</code>.</p>` : '';
  return page(
    'Allow access to the Agent Run Service?',
    `<h1>Allow <span id="client">${escapeHtml(view.clientLabel)}</span> to use the Agent Run Service?</h1>
${claimed}<p>It asks to act as you through the tool transport (<code>/mcp</code>) with these scopes:</p>
<ul id="scopes">${scopes}</ul>${redirect}
<form method="post" action="/oauth/consent/${encodeURIComponent(view.uid)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** Without a browser session: where to sign in. */
export function signInPageHtml(publicOrigin: string, production: boolean): string {
  const development = production
    ? ''
    : `<p>In development, a session comes from a development account: run <code>npm run admin -- dev-account</code> and open the
<code>signInUrl</code> it prints in this browser (a one-time link, valid 10 minutes), then reload this page.</p>`;
  return page(
    'Sign in to continue',
    `<h1>Sign in to continue</h1>
<p>An application asked to use the Agent Run Service as you. Sign in at <a href="${escapeHtml(publicOrigin)}">${escapeHtml(publicOrigin)}</a>
in this browser, then open this page again to allow or deny it.</p>${development}`,
  );
}

/** A development sign-in link that worked: the browser now has the account's session. */
export function devSignedInPageHtml(userId: string): string {
  return page(
    'Signed in',
    `<h1>Signed in</h1>
<p>This browser is signed in as the development account <code id="user">${escapeHtml(userId)}</code>.</p>
<p>Go back to the page that asked you to sign in (<code>ars login</code>'s, or an application's consent page) and reload it.</p>`,
  );
}

/** A development sign-in link that did not: nothing changed in this browser. */
export function devSignInFailedPageHtml(problem: string): string {
  return page(
    'Sign-in link not valid',
    `<h1>Sign-in link not valid</h1><p id="problem">${escapeHtml(problem)}</p>
<p>Run <code>npm run admin -- dev-account</code> for a new account and its link.</p>`,
  );
}

/** The authorization request is gone (expired or already answered). */
export function expiredPageHtml(): string {
  return page('This request has expired', '<h1>This request has expired</h1><p>Start the connection from your application again.</p>');
}
