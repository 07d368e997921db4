// The settings page's HTML: server-rendered forms, no script (it works with scripting off), in the
// gateway's one frame (oauth/consentPage.ts). Every value shown is escaped.
import { escapeHtml, page, SCOPE_WORDS } from '../oauth/consentPage.js';
import { SIGN_OUT_PATH } from '../domain/signIn.js';
import { SCOPES } from '../domain/scopes.js';
import type { GitHubConnection } from '@ars/catalog/client';
import type { PersonalAccessTokenDocument } from '../store/personalAccessTokens.js';

export interface SettingsView {
  userId: string;
  name: string | undefined;
  email: string | undefined;
  tokens: readonly PersonalAccessTokenDocument[];
  now: Date;
  /** Absent when Connect GitHub is not configured; `unavailable` when the catalog could not say. */
  github?: { connection: GitHubConnection | null } | 'unavailable';
}

const day = (date: Date | null | undefined): string => (date ? escapeHtml(date.toISOString().slice(0, 16).replace('T', ' ')) : '—');

function tokenRow(token: PersonalAccessTokenDocument, now: Date): string {
  const status = token.revokedAt ? 'revoked' : token.expiresAt && token.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
  const revoke =
    status === 'active'
      ? `<form method="post" action="/settings/api-keys/${encodeURIComponent(token._id)}/revoke"><button type="submit">Revoke</button></form>`
      : '';
  return `<tr data-token-id="${escapeHtml(token._id)}"><td>${escapeHtml(token.name)}</td><td><code>${escapeHtml(token.prefix)}…</code></td>
<td>${escapeHtml(token.scopes.join(', '))}</td><td>${day(token.createdAt)}</td><td>${day(token.lastUsedAt)}</td><td>${day(token.expiresAt)}</td>
<td class="status">${status}</td><td>${revoke}</td></tr>`;
}

function gitHubInstallationItem(installation: GitHubConnection['installations'][number]): string {
  const names = installation.repositories.map((repo) => `<li data-repo-id="${escapeHtml(repo.id)}">${escapeHtml(repo.full_name)}</li>`).join('');
  const more =
    installation.repositoryCount > installation.repositories.length
      ? `<li>and ${installation.repositoryCount - installation.repositories.length} more</li>`
      : '';
  const state = installation.suspended ? ' <strong class="status">suspended</strong>' : '';
  return `<li data-installation-id="${installation.id}"><strong>${escapeHtml(installation.account)}</strong>${state}: ${installation.repositoryCount} ${
    installation.repositoryCount === 1 ? 'repository' : 'repositories'
  }<ul>${names}${more}</ul></li>`;
}

/** Connected GitHub installations with their repositories, Connect GitHub and Refresh. */
function gitHubSection(github: SettingsView['github']): string {
  if (github === undefined) return '';
  const connect = `<form method="post" action="/settings/github/connect"><button type="submit" id="connect-github">Connect GitHub</button></form>`;
  if (github === 'unavailable') return `<h2>GitHub</h2><p id="github">Your GitHub connections cannot be shown right now; try again shortly.</p>${connect}`;
  const { connection } = github;
  if (!connection) {
    return `<h2>GitHub</h2><p id="github">No GitHub account is connected. Connect GitHub installs the App on your account or an organization you administer, or links an installation your team already has.</p>${connect}`;
  }
  const installations = connection.installations.map(gitHubInstallationItem).join('');
  return `<h2>GitHub</h2>
<p id="github">GitHub account <strong>@${escapeHtml(connection.login)}</strong>, checked ${day(new Date(connection.checkedAt))} UTC.</p>
<ul id="installations">${installations === '' ? '<li>GitHub shows this account no installation of the App.</li>' : installations}</ul>
${connect}<form method="post" action="/settings/github/refresh"><button type="submit" id="refresh-github">Refresh</button></form>`;
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
</form>
${gitHubSection(view.github)}`,
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
