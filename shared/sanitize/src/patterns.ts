// Every pattern here is linear by construction, and none matches more than its `maxLength`
// characters, so a string cut to its cap plus LONGEST_MATCH still holds every secret that starts
// inside the cap. The rules that keep them linear (patterns.security.test.ts checks each one with
// a static ReDoS checker):
// - a match starts only where the character before cannot continue it (a lookbehind), so a long
//   run of letters is tried once, not from each of its letters;
// - quantifiers are bounded, and two neighbouring quantifiers never share a character;
// - a match that fails late (a JWT's third part) fails within the run it started on.

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

export interface SecretPattern {
  readonly name: string;
  /** Global; tried left to right over the whole text. */
  readonly regex: RegExp;
  /** The longest text a match can be. */
  readonly maxLength: number;
  readonly replacement: string;
}

/** The longest token body, PEM block, JWT part or assignment value recognised. */
const TOKEN_BODY = 512;
const JWT_PART = 2048;
const PEM_BODY = 8192;

const NOT_AFTER_ALNUM = '(?<![A-Za-z0-9])';

function token(name: string, regex: string, maxLength: number): SecretPattern {
  return { name, regex: new RegExp(`${NOT_AFTER_ALNUM}${regex}`, 'g'), maxLength, replacement: REDACTED };
}

/** Secrets recognisable by their shape alone, wherever they appear. */
export const TOKEN_SHAPES: readonly SecretPattern[] = [
  token('this service’s PAT', 'tok_[0-9A-Za-z]{32}(?![0-9A-Za-z])', 36),
  token('GitHub token', `gh[pousr]_[A-Za-z0-9]{20,${TOKEN_BODY}}`, 4 + TOKEN_BODY),
  token('GitHub fine-grained PAT', `github_pat_[A-Za-z0-9_]{20,${TOKEN_BODY}}`, 11 + TOKEN_BODY),
  token('GitLab PAT', `glpat-[A-Za-z0-9_-]{20,${TOKEN_BODY}}`, 6 + TOKEN_BODY),
  // `sk-ant-…` and `sk-proj-…` are in this shape too.
  token('OpenAI or Anthropic key', `sk-[A-Za-z0-9_-]{16,${TOKEN_BODY}}`, 3 + TOKEN_BODY),
  token('Slack token', `xox[abprs]-[A-Za-z0-9-]{10,${TOKEN_BODY}}`, 5 + TOKEN_BODY),
  // Before the lone id: an id followed by its secret access key (`aws configure` output, a
  // credentials CSV, `id:secret`), where the secret has no name of its own to be found by.
  {
    name: 'AWS access key id and its secret',
    regex: new RegExp(`${NOT_AFTER_ALNUM}(?:AKIA|ASIA)[0-9A-Z]{16}([\\s,:;|"']{1,8})[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`, 'g'),
    maxLength: 20 + 8 + 40,
    replacement: `${REDACTED}$1${REDACTED}`,
  },
  token('AWS access key id', '(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])', 20),
  {
    name: 'JWT',
    // Starts only at the start of a run of its own characters: the parts are tried once per run.
    regex: new RegExp(`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,${JWT_PART}}\\.[A-Za-z0-9_-]{10,${JWT_PART}}\\.[A-Za-z0-9_-]{10,${JWT_PART}}`, 'g'),
    maxLength: 3 + 3 * JWT_PART + 2,
    replacement: REDACTED,
  },
  {
    name: 'PEM private key',
    // To its END line; without one (the first line of a block, a cut text) the body goes anyway.
    regex: new RegExp(`-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----(?:[\\s\\S]{0,${PEM_BODY}}?-----END [A-Z ]{0,40}PRIVATE KEY-----|[\\s\\S]{0,${PEM_BODY}})`, 'g'),
    maxLength: 2 * (11 + 40 + 16) + PEM_BODY,
    replacement: REDACTED,
  },
];

/** The start of a token shape (searched for in the last run of token characters: see `unfinishedTokenAt`). */
export const TOKEN_START = /(?<![A-Za-z0-9])(?:gh[pousr]_|github_pat_|glpat-|sk-|xox[abprs]-|tok_|AKIA|ASIA|eyJ)/;

const isTokenCharacter = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x2e || code === 0x2d;

/**
 * Where the end of `text` may be the first part of a token still arriving (an unfinished line):
 * the first token start in its last run of token characters, or -1. The run is found by a loop
 * from the end: an anchored `[…]*$` would be tried from each of its characters.
 */
export function unfinishedTokenAt(text: string): number {
  let start = text.length;
  while (start > 0 && isTokenCharacter(text.charCodeAt(start - 1))) start -= 1;
  if (start === text.length) return -1;
  const found = TOKEN_START.exec(text.slice(Math.max(0, start - 1)));
  if (!found) return -1;
  return Math.max(0, start - 1) + found.index;
}

/** `scheme://user:password@`: what is between `://` and `@` goes (the scheme is looked at, not matched, so a long one costs nothing). */
export const URL_CREDENTIALS: SecretPattern = {
  name: 'URL credentials',
  regex: /(?<=[A-Za-z0-9+.-]):\/\/[^/\s@]{1,1024}@/g,
  maxLength: 3 + 1024 + 1,
  replacement: '://***@',
};

/**
 * A label of two to four words before a colon (`Secret access key: …`, `Client secret: …`), whose
 * value is secret-shaped: 16 or more token characters. Prose has such labels too ("Fixed the auth
 * middleware: now …"), so the value's shape is required; a one-word name is ASSIGNMENT_NAME's.
 * Group 1 is the label and separator, group 2 the value; the label is judged by isSensitiveName.
 */
export const LABELLED_SECRET: SecretPattern = {
  name: 'labelled secret',
  regex: new RegExp(
    `(?<![\\w.-])((?:[A-Za-z]{1,24} ){1,3}[A-Za-z]{1,24}[ \\t]{0,16}:[ \\t]{0,16})([A-Za-z0-9/+=_-]{16,${TOKEN_BODY}})(?![A-Za-z0-9/+=_-])`,
    'g',
  ),
  maxLength: 4 * 25 + 33 + TOKEN_BODY,
  replacement: `$1${REDACTED}`,
};

const SCHEME_VALUE = TOKEN_BODY * 8;

/** `Bearer x` (an Authorization header, a curl command line): x goes, the scheme stays readable. */
export const BEARER: SecretPattern = {
  name: 'Bearer token',
  regex: new RegExp(`(?<![A-Za-z0-9_])(Bearer)([ \\t]{1,16})[A-Za-z0-9._~+/=-]{1,${SCHEME_VALUE}}`, 'gi'),
  maxLength: 6 + 16 + SCHEME_VALUE,
  replacement: `$1$2${REDACTED}`,
};

/** `Basic x`, `token x` with x of 8 characters or more (shorter is a word: `if token == null`). */
export const BASIC_OR_TOKEN: SecretPattern = {
  name: 'Basic or token credential',
  regex: new RegExp(`(?<![A-Za-z0-9_])(Basic|token)([ \\t]{1,16})[A-Za-z0-9._~+/=-]{8,${SCHEME_VALUE}}`, 'g'),
  maxLength: 5 + 16 + SCHEME_VALUE,
  replacement: `$1$2${REDACTED}`,
};

const NAME = 128;
const SEPARATOR_BLANKS = 16;
export const ASSIGNMENT_VALUE_LENGTH = PEM_BODY;

/**
 * The name and separator of `NAME=value`, `NAME: value`, `"name": "value"` (also with escaped
 * quotes, as in JSON inside a log line). Only this part is matched: the value is consumed (by
 * ASSIGNMENT_VALUE) only when the name is sensitive, so a value is never read twice.
 */
export const ASSIGNMENT_NAME = new RegExp(
  `(?<![\\w.-])(\\\\?["']?)([A-Za-z_][\\w.-]{0,${NAME - 1}})\\1([ \\t]{0,${SEPARATOR_BLANKS}}(?::|=(?!=))[ \\t]{0,${SEPARATOR_BLANKS}})`,
  'g',
);

/**
 * A command-line flag and what separates it from its value: `--api-key=x`, `--password x`,
 * `-Dpassword=x` (a `NAME=` right after a dash is a flag, which ASSIGNMENT_NAME's lookbehind leaves
 * out). A blank separates a value only when a value follows (not the next flag). Like an
 * assignment, the value is consumed only when the flag's name is sensitive.
 */
export const FLAG_NAME = new RegExp(`(?<![\\w.-])(--?)([A-Za-z_][\\w.-]{0,${NAME - 1}})(=|[ \\t]{1,${SEPARATOR_BLANKS}}(?=[^\\s-]))`, 'g');

/**
 * A sensitive name's value, from where the separator ends (sticky): an auth scheme before it
 * (`Authorization: Basic x`) stays readable; a quoted value whose closing quote is not on its line
 * runs to the line's end.
 */
export const ASSIGNMENT_VALUE = new RegExp(
  `((?:Bearer|Basic|Digest|Token)[ \\t]{1,${SEPARATOR_BLANKS}})?` +
    `(\\\\"(?:(?!\\\\")[^\\n]){0,${ASSIGNMENT_VALUE_LENGTH}}(?:\\\\")?|"(?:[^"\\\\\\n]|\\\\.){0,${ASSIGNMENT_VALUE_LENGTH}}"?|'[^'\\n]{0,${ASSIGNMENT_VALUE_LENGTH}}'?|[^\\s"']{1,${ASSIGNMENT_VALUE_LENGTH}})`,
  'iy',
);

export const ASSIGNMENT_MAX_LENGTH = 2 * 2 + NAME + 2 * SEPARATOR_BLANKS + 1 + 6 + SEPARATOR_BLANKS + 2 * 2 + 2 * ASSIGNMENT_VALUE_LENGTH;
export const FLAG_MAX_LENGTH = 2 + NAME + SEPARATOR_BLANKS + 6 + SEPARATOR_BLANKS + 2 * 2 + 2 * ASSIGNMENT_VALUE_LENGTH;

/** Every pattern, for the linear-time check and the window's size. */
export const ALL_PATTERNS: readonly { name: string; regex: RegExp }[] = [
  ...TOKEN_SHAPES,
  URL_CREDENTIALS,
  BEARER,
  BASIC_OR_TOKEN,
  LABELLED_SECRET,
  { name: 'assignment name', regex: ASSIGNMENT_NAME },
  { name: 'flag name', regex: FLAG_NAME },
  { name: 'assignment value', regex: ASSIGNMENT_VALUE },
  { name: 'token start', regex: TOKEN_START },
];

/** The longest text any pattern can match: what a string keeps past its cap before it is redacted. */
export const LONGEST_MATCH = Math.max(
  ...TOKEN_SHAPES.map((p) => p.maxLength),
  URL_CREDENTIALS.maxLength,
  BEARER.maxLength,
  BASIC_OR_TOKEN.maxLength,
  LABELLED_SECRET.maxLength,
  ASSIGNMENT_MAX_LENGTH,
  FLAG_MAX_LENGTH,
);
