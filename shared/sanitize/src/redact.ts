import { NO_KNOWN_SECRETS, type KnownSecrets } from './knownSecrets.js';
import { isSensitiveName } from './sensitiveNames.js';
import {
  ASSIGNMENT_NAME,
  ASSIGNMENT_VALUE,
  BASIC_OR_TOKEN,
  BEARER,
  FLAG_NAME,
  LABELLED_SECRET,
  LONGEST_MATCH,
  REDACTED,
  TOKEN_SHAPES,
  URL_CREDENTIALS,
} from './patterns.js';

/**
 * Text with every secret recognised replaced: known values first (before a shape rule takes part
 * of one), then token shapes, URL credentials, auth schemes, sensitive flags and assignments. Linear in
 * the text's length, but it reads all of it: callers with a cap use `sanitizeText`.
 */
export function redactSecrets(text: string, options: SanitizeTextOptions = {}): string {
  if (text === '') return text;
  let out = text;
  for (const secret of (options.knownSecrets ?? NO_KNOWN_SECRETS).values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  for (const shape of TOKEN_SHAPES) out = out.replace(shape.regex, shape.replacement);
  if (out.includes('://')) out = out.replace(URL_CREDENTIALS.regex, URL_CREDENTIALS.replacement);
  out = out.replace(BEARER.regex, BEARER.replacement);
  out = out.replace(BASIC_OR_TOKEN.regex, BASIC_OR_TOKEN.replacement);
  out = out.replace(LABELLED_SECRET.regex, (whole, label: string) => (isSensitiveName(label) ? `${label}${REDACTED}` : whole));
  return redactNamedValues(redactNamedValues(out, FLAG_NAME), ASSIGNMENT_NAME);
}

/**
 * One pass: each name and separator (`names`: group 2 is the name) is matched once; a sensitive
 * name's value is consumed and replaced, any other name's value is read on as ordinary text
 * (`env: GITHUB_TOKEN=x` holds one).
 */
function redactNamedValues(text: string, names: RegExp): string {
  let out = '';
  let copied = 0;
  const nameAt = new RegExp(names.source, names.flags);
  const values = new RegExp(ASSIGNMENT_VALUE.source, ASSIGNMENT_VALUE.flags);
  for (let match = nameAt.exec(text); match !== null; match = nameAt.exec(text)) {
    const [whole, , name = ''] = match;
    if (!isSensitiveName(name)) continue;
    const valueAt = match.index + whole.length;
    values.lastIndex = valueAt;
    const found = values.exec(text);
    if (!found) continue;
    const [value, scheme = '', body = ''] = found;
    const open = /^(\\"|"|')/.exec(body)?.[1] ?? '';
    const close = open !== '' && body.length > open.length && body.endsWith(open) ? open : '';
    out += `${text.slice(copied, match.index)}${whole}${scheme}${open}${REDACTED}${close}`;
    copied = valueAt + value.length;
    nameAt.lastIndex = copied;
  }
  return out + text.slice(copied);
}

/** How many characters past its cap a string keeps while it is redacted: any secret starting inside the cap is whole. */
export function redactionWindow(cap: number, known: KnownSecrets = NO_KNOWN_SECRETS): number {
  return cap + Math.max(LONGEST_MATCH, known.longest);
}

export interface SanitizeTextOptions {
  /** Exact values redacted wherever they appear (the service's own secrets, a run's keys). */
  knownSecrets?: KnownSecrets;
  /** The most characters kept (sanitizeText); default 2,000, the contract's limit for an event's strings. */
  cap?: number;
}

export const DEFAULT_CAP = 2_000;

/** `text` (the first part of one `totalLength` long) within `cap` characters, its end replaced by a marker saying how many were over. */
export function truncate(text: string, cap: number, totalLength: number = text.length): string {
  if (totalLength <= cap) return text;
  const marker = `…[truncated ${totalLength - cap} chars]`;
  if (marker.length >= cap) return text.slice(0, cap);
  return text.slice(0, Math.max(0, cap - marker.length)) + marker;
}

/**
 * A string as it may be kept: cut to its cap plus the longest secret a pattern can match, redacted,
 * then truncated to `cap` characters with a marker. The cost depends on the cap, never on the
 * string's length, and the cut never leaves the first part of a secret visible.
 */
export function sanitizeText(text: string, options: SanitizeTextOptions = {}): string {
  const cap = options.cap ?? DEFAULT_CAP;
  const size = redactionWindow(cap, options.knownSecrets);
  const window = text.length > size ? text.slice(0, size) : text;
  const redacted = redactSecrets(window, options);
  // Redaction changes lengths: what was cut off before it counts as truncated too.
  return truncate(redacted, cap, redacted.length + (text.length - window.length));
}
