// The settings page's HTML: server-rendered forms, no script (it works with scripting off), in the
// gateway's one frame (oauth/consentPage.ts). Every value shown is escaped.
import { escapeHtml, page, SCOPE_WORDS } from '../oauth/consentPage.js';
import { SIGN_OUT_PATH } from '../domain/signIn.js';
import { SCOPES } from '../domain/scopes.js';
import type { TokenDocument } from '../store/personalAccessTokens.js';

export interface SettingsView {
  userId: string;
  name: string | undefined;
  email: string | undefined;
  tokens: readonly TokenDocument[];
  now: Date;
}

const day = (date: Date | null | undefined): string => (date ? escapeHtml(date.toISOString().slice(0, 16).replace('T', ' ')) : '—');

function tokenRow(token: TokenDocument, now: Date): string {
  const status = token.revokedAt ? 'revoked' : token.expiresAt && token.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
  const revoke =
    status === 'active'
      ? `<form method="post" action="/settings/api-keys/${encodeURIComponent(token._id)}/revoke"><button type="submit">Revoke</button></form>`
      : '';
  return `<tr data-token-id="${escapeHtml(token._id)}"><td>${escapeHtml(token.name)}</td><td><code>${escapeHtml(token.prefix)}…</code></td>
<td>${escapeHtml(token.scopes.join(', '))}</td><td>${day(token.createdAt)}</td><td>${day(token.lastUsedAt)}</td><td>${day(token.expiresAt)}</td>
<td class="status">${status}</td><td>${revoke}</td></tr>`;
}

export function settingsPageHtml(view: SettingsView): string {
  const who = [view.name, view.email]
    .filter((part): part is string => part !== undefined)
    .map(escapeHtml)
    .join(' · ');
  const rows = view.tokens.map((token) => tokenRow(token, view.now)).join('');
  const scopes = SCOPES.map(
    (scope) =>
      `<label><input type="checkbox" name="scopes" value="${scope}" checked> <code>${scope}</code>: ${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</label><br>`,
  ).join('');
  return page(
    'Settings',
    `<h1>Settings</h1>
<p id="who">Signed in as ${who === '' ? '' : `${who} `}<code>${escapeHtml(view.userId)}</code></p>
<form method="post" action="${SIGN_OUT_PATH}"><button type="submit" id="sign-out">Sign out</button></form>
<h2>Personal access tokens</h2>
<p>A token acts as you on the API (<code>Authorization: Bearer …</code>) and through the tool transport. It is shown once, when it is created.</p>
<table id="tokens"><thead><tr><th>Name</th><th>Prefix</th><th>Scopes</th><th>Created</th><th>Last used</th><th>Expires</th><th>Status</th><th></th></tr></thead>
<tbody>${rows === '' ? '<tr><td colspan="8">No tokens yet.</td></tr>' : rows}</tbody></table>
<h3>Create a token</h3>
<form method="post" action="/settings/api-keys" id="create-token">
<label>Name <input type="text" name="name" required maxlength="200"></label><br>
${scopes}<label>Expires in <input type="number" name="expiresInDays" min="1" max="3650" value="90"> days</label><br>
<button type="submit">Create token</button>
</form>`,
  );
}

/** A token just created: its plaintext, here only. */
export function tokenCreatedPageHtml(token: { token: string; prefix: string; scopes: readonly string[]; expiresAt: string }, name: string): string {
  return page(
    'Token created',
    `<h1>Token created</h1>
<p>Copy the token <strong>${escapeHtml(name)}</strong> now: it is not shown again.</p>
<p><code id="token">${escapeHtml(token.token)}</code></p>
<p>Scopes: ${escapeHtml(token.scopes.join(', '))}. Expires ${escapeHtml(token.expiresAt)}.</p>
<p><a href="/settings">Back to settings</a></p>`,
  );
}

/** A form the settings routes could not take: why, and the way back. */
export function settingsProblemPageHtml(problem: string): string {
  return page('Not done', `<h1>Not done</h1><p id="problem">${escapeHtml(problem)}</p><p><a href="/settings">Back to settings</a></p>`);
}
