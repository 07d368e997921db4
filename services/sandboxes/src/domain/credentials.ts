// Clone URLs may carry a short-lived source-host token (GitHub: https://x-access-token:<token>@…).
// It must never reach the working tree's git config (in texts, `@ars/sanitize` redacts `user:token@`).

/** The URL without user name and password (other URLs and plain paths unchanged). */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
