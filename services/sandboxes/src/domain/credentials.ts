// Clone URLs may carry a short-lived source-host token (GitHub: https://x-access-token:<token>@…).
// It must never reach a log line, an error text, or the working tree's git config.

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

/** Text (git's stderr, an error message) with every `scheme://user:secret@` reduced to `scheme://***@`. */
export function redactCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1***@');
}
