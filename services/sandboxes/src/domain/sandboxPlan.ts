// What a sandbox runs once its repository is checked out: an install step, then a dev server.
// The repository's own `.ars/sandbox.json` wins; otherwise the commands are guessed from the files
// the ecosystems leave behind. A repository's files are the user's input: nothing here throws on
// them — what is wrong becomes a problem text the caller writes into install_log.

/** Where the repository says what to run (relative to the sandbox's working directory). */
export const SANDBOX_CONFIG_FILE = '.ars/sandbox.json';

/** `source` of a command taken from SANDBOX_CONFIG_FILE. */
export const CONFIGURED_SOURCE = 'configured';

/** `source` of a dev command taken from package.json `scripts.dev`. */
export const PACKAGE_JSON_DEV_SOURCE = 'package_json:dev';

/** One command to run and where it came from (a lifecycle event's decision_code). */
export interface Step {
  command: string;
  source: string;
}

export interface SandboxPlan {
  /** null: nothing to install (none detected, or configured as none). */
  install: Step | null;
  /** null: no dev server. */
  dev: Step | null;
  /** Files that were ignored or misread, one sentence each naming the file. */
  problems: string[];
}

export type JsPackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

export interface LockFileRule {
  /** Any one of these files present selects the rule. */
  readonly files: readonly string[];
  readonly command: string;
  readonly source: string;
  /** The package manager that runs package.json scripts in such a repository; null outside JavaScript. */
  readonly packageManager: JsPackageManager | null;
}

/**
 * The install detection, first match wins. JavaScript comes first because a repository with a
 * JavaScript lock file and, say, a requirements.txt for tooling is a JavaScript project; among
 * JavaScript managers the stricter lock files come before npm's because package-lock.json is often
 * committed by accident next to another manager's. Installs are frozen/locked so a sandbox builds
 * what the repository pinned and never rewrites its lock file.
 */
export const LOCK_FILE_RULES: readonly LockFileRule[] = [
  { files: ['pnpm-lock.yaml'], command: 'pnpm install --frozen-lockfile', source: 'lockfile:pnpm', packageManager: 'pnpm' },
  { files: ['yarn.lock'], command: 'yarn install --frozen-lockfile', source: 'lockfile:yarn', packageManager: 'yarn' },
  { files: ['bun.lockb', 'bun.lock'], command: 'bun install --frozen-lockfile', source: 'lockfile:bun', packageManager: 'bun' },
  { files: ['package-lock.json', 'npm-shrinkwrap.json'], command: 'npm ci --no-audit --no-fund', source: 'lockfile:npm', packageManager: 'npm' },
  { files: ['uv.lock'], command: 'uv sync --frozen', source: 'lockfile:uv', packageManager: null },
  { files: ['poetry.lock'], command: 'poetry install --no-interaction', source: 'lockfile:poetry', packageManager: null },
  { files: ['Pipfile.lock'], command: 'pipenv sync', source: 'lockfile:pipenv', packageManager: null },
  { files: ['requirements.txt'], command: 'pip install -r requirements.txt', source: 'requirements:pip', packageManager: null },
  { files: ['Gemfile.lock'], command: 'bundle install', source: 'lockfile:bundler', packageManager: null },
  { files: ['go.sum'], command: 'go mod download', source: 'lockfile:go', packageManager: null },
  { files: ['Cargo.lock'], command: 'cargo fetch --locked', source: 'lockfile:cargo', packageManager: null },
  { files: ['composer.lock'], command: 'composer install --no-interaction', source: 'lockfile:composer', packageManager: null },
];

const CONFIG_KEYS = ['install', 'dev'] as const;
type ConfigKey = (typeof CONFIG_KEYS)[number];

/** A configured key: a command, or null for "explicitly none". Absent keys are not in the map. */
type Configured = Partial<Record<ConfigKey, string | null>>;

/**
 * The sandbox's install and dev commands. `readFile` answers a file's text relative to the working
 * directory (the repository's rootDirectory), or null when it is absent; only presence matters for
 * lock files (bun.lockb is binary).
 */
export async function sandboxPlan(readFile: (relativePath: string) => Promise<string | null>): Promise<SandboxPlan> {
  const problems: string[] = [];
  const configured = readConfig(await readFile(SANDBOX_CONFIG_FILE), problems);

  const { detected, packageManager } = await detectLockFile(readFile);
  const install = 'install' in configured ? configuredStep(configured.install) : detected ? { command: detected.command, source: detected.source } : null;

  let dev: Step | null;
  if ('dev' in configured) {
    dev = configuredStep(configured.dev);
  } else {
    const script = devScript(await readFile('package.json'), problems);
    dev = script === null ? null : { command: `${packageManager} run dev`, source: PACKAGE_JSON_DEV_SOURCE };
  }
  return { install, dev, problems };
}

function configuredStep(command: string | null | undefined): Step | null {
  return command ? { command, source: CONFIGURED_SOURCE } : null;
}

/** The install rule (first match) and the package manager of the first JavaScript rule present (npm when none). */
async function detectLockFile(
  readFile: (relativePath: string) => Promise<string | null>,
): Promise<{ detected: LockFileRule | null; packageManager: JsPackageManager }> {
  let detected: LockFileRule | null = null;
  for (const rule of LOCK_FILE_RULES) {
    // Once the install is known, only a JavaScript rule can still change the answer.
    if (detected && rule.packageManager === null) continue;
    if (!(await anyPresent(readFile, rule.files))) continue;
    detected ??= rule;
    if (rule.packageManager !== null) return { detected, packageManager: rule.packageManager };
  }
  return { detected, packageManager: 'npm' };
}

async function anyPresent(readFile: (relativePath: string) => Promise<string | null>, files: readonly string[]): Promise<boolean> {
  for (const file of files) if ((await readFile(file)) !== null) return true;
  return false;
}

function readConfig(text: string | null, problems: string[]): Configured {
  if (text === null) return {};
  const parsed = parseJson(text);
  if (!parsed.ok) {
    problems.push(`${SANDBOX_CONFIG_FILE} is ignored: ${parsed.problem}`);
    return {};
  }
  const value = parsed.value;
  if (!isPlainObject(value)) {
    problems.push(`${SANDBOX_CONFIG_FILE} is ignored: it must be a JSON object like {"install": "…", "dev": "…"}, not ${describe(value)}`);
    return {};
  }
  const configured: Configured = {};
  const wrong: string[] = [];
  for (const key of CONFIG_KEYS) {
    if (!Object.hasOwn(value, key)) continue;
    const item = value[key];
    if (item === null) configured[key] = null;
    else if (typeof item === 'string') configured[key] = item.trim() === '' ? null : item.trim();
    else wrong.push(`"${key}" must be a string or null, not ${describe(item)}`);
  }
  if (wrong.length > 0) {
    problems.push(`${SANDBOX_CONFIG_FILE} is ignored: ${wrong.join('; ')}`);
    return {};
  }
  // A misspelt key would otherwise silently fall back to detection; the file is still used.
  const unknown = Object.keys(value).filter((key) => !(CONFIG_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0)
    problems.push(
      `${SANDBOX_CONFIG_FILE}: unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.map((key) => `"${key}"`).join(', ')} ignored (known: "install", "dev")`,
    );
  return configured;
}

/** package.json's `scripts.dev` when it is a non-empty string; null otherwise (a problem when malformed). */
function devScript(text: string | null, problems: string[]): string | null {
  if (text === null) return null;
  const parsed = parseJson(text);
  if (!parsed.ok) {
    problems.push(`package.json could not be read, so no dev command was detected: ${parsed.problem}`);
    return null;
  }
  if (!isPlainObject(parsed.value)) {
    problems.push(`package.json could not be read, so no dev command was detected: it must be a JSON object, not ${describe(parsed.value)}`);
    return null;
  }
  const scripts = parsed.value['scripts'];
  if (scripts === undefined) return null;
  if (!isPlainObject(scripts)) {
    problems.push(`package.json could not be read, so no dev command was detected: "scripts" must be an object, not ${describe(scripts)}`);
    return null;
  }
  const dev = scripts['dev'];
  if (dev === undefined) return null;
  if (typeof dev !== 'string') {
    problems.push(`package.json could not be read, so no dev command was detected: "scripts.dev" must be a string, not ${describe(dev)}`);
    return null;
  }
  return dev.trim() === '' ? null : dev;
}

type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

function parseJson(text: string): Parsed {
  // Editors on Windows save a byte order mark that JSON.parse rejects.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch (error) {
    // Node's own message quotes the file's text, which may hold anything (the problem goes to a log).
    const position = /at position (\d+)/.exec(error instanceof Error ? error.message : '');
    if (body.trim() === '') return { ok: false, problem: 'it is empty, which is not valid JSON' };
    if (!position?.[1]) return { ok: false, problem: 'it is not valid JSON' };
    const before = body.slice(0, Number(position[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return { ok: false, problem: `it is not valid JSON (line ${line}, column ${column})` };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
