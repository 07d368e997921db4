// `npm run --silent admin -- dev-account --json` (from the repository root, with the stack running).
import { resolve } from 'node:path';
import { readStackFile, repoRoot } from '@ars/stack';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const USAGE = 'usage: npm run --silent admin -- dev-account [--json]';

/** `ARS_BASE_URL` when set, else the running stack's `.stack/stack.json`, else the default address. */
export function findBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ARS_BASE_URL) return env.ARS_BASE_URL.replace(/\/+$/, '');
  const stack = readStackFile(env.STACK_STATE_DIR ? resolve(repoRoot, env.STACK_STATE_DIR) : undefined);
  return (stack?.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
}

export interface DevAccount {
  baseUrl: string;
  userId: string;
  sessionCookie: string;
  installationId: number;
  repos: { id: string; full_name: string; default_branch: string | null }[];
}

class CommandError extends Error {}

export async function createDevAccount(baseUrl: string): Promise<DevAccount> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/dev/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new CommandError(`no stack answers at ${baseUrl} (${reason}); start it with npm start`);
  }
  const text = await response.text();
  let envelope: { ok?: boolean; data?: Omit<DevAccount, 'baseUrl'>; error?: { code: string; message: string } } = {};
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    // reported below
  }
  if (response.status === 404 && envelope.error?.message?.startsWith('No route for')) {
    throw new CommandError(`the gateway at ${baseUrl} has no development accounts (it runs in production)`);
  }
  if (!response.ok || envelope.ok !== true || !envelope.data) {
    const detail = envelope.error ? `${envelope.error.code}: ${envelope.error.message}` : `HTTP ${response.status}`;
    throw new CommandError(`the gateway at ${baseUrl} refused the development account (${detail})`);
  }
  const { userId, sessionCookie, installationId, repos } = envelope.data;
  return { baseUrl, userId, sessionCookie, installationId, repos };
}

/** Runs the command; returns the exit code. Output: one JSON object on stdout, or one line on stderr. */
export async function main(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...flags] = args;
  if (command !== 'dev-account' || flags.some((flag) => flag !== '--json')) {
    process.stderr.write(`${USAGE}\n`);
    return 1;
  }
  const environment = env.ARS_ENV ?? env.NODE_ENV;
  if (environment === 'production') {
    process.stderr.write(`dev-account refused: the stack is configured for production (${env.ARS_ENV ? 'ARS_ENV' : 'NODE_ENV'}=production)\n`);
    return 1;
  }
  try {
    const account = await createDevAccount(findBaseUrl(env));
    process.stdout.write(flags.includes('--json') ? `${JSON.stringify(account)}\n` : `${JSON.stringify(account, null, 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`dev-account failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
