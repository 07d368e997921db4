import type { CliLoginRequest } from '../domain/cliLogin.js';
import { escapeHtml, page, SCOPE_WORDS } from '../oauth/consentPage.js';

/** The command line's consent page: who asks (its own name, a claim), the scopes, Allow/Deny as a plain form. */
export function cliConsentPageHtml(request: CliLoginRequest): string {
  const scopes = request.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</li>`).join('');
  // The request travels in the form itself (validated again on POST): no server-side state before the answer.
  const hidden = (
    [
      ['redirect_uri', request.redirectUri],
      ['state', request.state],
      ['code_challenge', request.codeChallenge],
      ['code_challenge_method', 'S256'],
      ['scopes', request.scopes.join(',')],
      ['client_name', request.clientName],
    ] as const
  )
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('\n');
  return page(
    'Sign in the ars command line?',
    `<h1>Allow the <code>ars</code> command line to act as you?</h1>
<p>A command line on this computer, calling itself “<span id="client">${escapeHtml(request.clientName)}</span>”, asks for a personal access token with these scopes:</p>
<ul id="scopes">${scopes}</ul>
<p>After your answer you return to <code>${escapeHtml(request.redirectUri)}</code> on this computer. Only allow it if you just ran <code>ars login</code>.</p>
<form method="post" action="/cli/login">
${hidden}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** A request the page cannot answer: nothing is redirected to a URI that was not checked. */
export function cliLoginErrorPageHtml(problem: string): string {
  return page(
    'This login request is not valid',
    `<h1>This login request is not valid</h1><p id="problem">${escapeHtml(problem)}</p><p>Run <code>ars login</code> again.</p>`,
  );
}
