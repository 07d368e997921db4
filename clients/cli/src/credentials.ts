import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What `ars login` stores (issue 18's shared spec, CLI login 5). */
export interface Credentials {
  baseUrl: string;
  token: string;
  prefix: string;
  scopes: string[];
  expiresAt: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** `ARS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/ars`, else `~/.config/ars`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ARS_CONFIG_DIR) return env.ARS_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'ars');
}

export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'credentials.json');
}

export async function readCredentials(env: NodeJS.ProcessEnv = process.env): Promise<Credentials | undefined> {
  let text: string;
  try {
    text = await readFile(credentialsPath(env), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<Credentials>;
  if (typeof parsed.token !== 'string' || typeof parsed.baseUrl !== 'string') return undefined;
  return parsed as Credentials;
}

/**
 * The token is a password: the directory is 0700 and the file 0600 from its first byte (written to
 * a private temporary file, then renamed over the old one), whatever the umask.
 */
export async function writeCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const file = credentialsPath(env);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: 'w' });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return file;
}

export async function removeCredentials(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await rm(credentialsPath(env), { force: true });
}

/** Where the token and the base URL come from, first found wins. */
export interface Resolved {
  baseUrl: string;
  token: string | undefined;
  tokenSource: '--token' | 'ARS_TOKEN' | 'credentials' | undefined;
}

export async function resolveAccess(options: { token?: string; baseUrl?: string }, env: NodeJS.ProcessEnv = process.env): Promise<Resolved> {
  const stored = await readCredentials(env);
  const baseUrl = (options.baseUrl || env.ARS_BASE_URL || stored?.baseUrl || DEFAULT_BASE_URL).replace(/\/+$/, '');
  if (options.token) return { baseUrl, token: options.token, tokenSource: '--token' };
  if (env.ARS_TOKEN) return { baseUrl, token: env.ARS_TOKEN, tokenSource: 'ARS_TOKEN' };
  if (stored) return { baseUrl, token: stored.token, tokenSource: 'credentials' };
  return { baseUrl, token: undefined, tokenSource: undefined };
}
