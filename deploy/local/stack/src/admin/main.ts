// The admin command of the local stack (a development tool: it reads the running stack's
// .stack/stack.json, so it lives with the stack, not in the gateway it calls).
// `npm run --silent admin -- dev-account --json` (from the repository root, with the stack running).
// `npm run --silent admin -- open-pull-request --repo <repoId> --head <branch> [--base <branch>] [--title <text>] [--cookie <ars_session=…>] [--json]`.
// `npm run --silent admin -- redrive-dlq <topic> [--group <consumer group>] [--dry-run] [--limit N] [--json]`.
// `npm run --silent admin -- disable-user <usr_… id or email> [--json]` (the gateway's own command, with the stack's address and internal token).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { isTopicName, redriveDeadLetters, type BaseTopicName, type RedriveLine, type RedriveSummary } from '@ars/bus';
import { repoRoot } from '../paths.js';
import { readStackFile } from '../stackFile.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const USAGE = [
  'usage: npm run --silent admin -- dev-account [--json]',
  '       npm run --silent admin -- open-pull-request --repo <repoId> --head <branch> [--base <branch>] [--title <text>] [--cookie <ars_session=…>] [--json]',
  '       npm run --silent admin -- redrive-dlq <topic> [--group <consumer group>] [--dry-run] [--limit N] [--json]',
  '       npm run --silent admin -- disable-user <usr_… id or email> [--json]',
].join('\n');

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
  /** Opened in a browser, signs it in as the account: once, within 10 minutes (the consent pages need a browser session). */
  signInUrl: string;
  installationId: number;
  repos: { id: string; full_name: string; default_branch: string | null }[];
  /** An open pull request on the first repository with its first review's check run linked: `POST /pr-reviews/rerun` works at once. */
  pullRequest?: {
    repoId: string;
    number: number;
    url: string;
    headRef: string;
    headSha: string;
    checkRunId: number | null;
    attemptId: string;
    automationId: string;
    automationRunId: string | null;
  };
}

class CommandError extends Error {}

export async function createDevAccount(baseUrl: string): Promise<DevAccount> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/dev/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ pullRequest: true }),
      signal: AbortSignal.timeout(120_000),
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
  const { userId, sessionCookie, signInUrl, installationId, repos, pullRequest } = envelope.data;
  return { baseUrl, userId, sessionCookie, signInUrl, installationId, repos, ...(pullRequest ? { pullRequest } : {}) };
}

export interface OpenPullRequestArguments {
  repoId: string;
  head: string;
  base?: string;
  title?: string;
  /** The development account's `sessionCookie` (`ars_session=…`); default `ARS_SESSION_COOKIE`. */
  cookie: string;
  json: boolean;
}

/** The arguments of `open-pull-request`, or why they are wrong. */
export function parseOpenPullRequestArguments(args: readonly string[], env: NodeJS.ProcessEnv): OpenPullRequestArguments | string {
  const values: Record<string, string> = {};
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--json') {
      json = true;
      continue;
    }
    const name = /^--(repo|head|base|title|cookie)$/.exec(arg)?.[1];
    const value = args[i + 1];
    if (!name) return `unknown argument ${arg}`;
    if (value === undefined || value.startsWith('--')) return `${arg} needs a value`;
    values[name] = value;
    i++;
  }
  const cookie = values.cookie ?? env.ARS_SESSION_COOKIE ?? '';
  if (!values.repo || !values.head) return '--repo and --head are required';
  if (!cookie) return 'a session cookie is required: --cookie <ars_session=…> or ARS_SESSION_COOKIE (the sessionCookie of dev-account)';
  return {
    repoId: values.repo,
    head: values.head,
    ...(values.base ? { base: values.base } : {}),
    ...(values.title ? { title: values.title } : {}),
    cookie,
    json,
  };
}

/** POST /api/dev/pull-requests with the session: the pull request opened and its first review queued. */
export async function openPullRequest(baseUrl: string, args: OpenPullRequestArguments): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/dev/pull-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', cookie: args.cookie },
      body: JSON.stringify({ repoId: args.repoId, head: args.head, ...(args.base ? { base: args.base } : {}), ...(args.title ? { title: args.title } : {}) }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new CommandError(`no stack answers at ${baseUrl} (${reason}); start it with npm start`);
  }
  const envelope = (await response.json().catch(() => ({}))) as { ok?: boolean; data?: unknown; error?: { code: string; message: string } };
  if (!response.ok || envelope.ok !== true) {
    const detail = envelope.error ? `${envelope.error.code}: ${envelope.error.message}` : `HTTP ${response.status}`;
    throw new CommandError(`the gateway at ${baseUrl} did not open the pull request (${detail})`);
  }
  return envelope.data;
}

async function openPullRequestCommand(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseOpenPullRequestArguments(args, env);
  if (typeof parsed === 'string') {
    process.stderr.write(`open-pull-request: ${parsed}\n${USAGE}\n`);
    return 1;
  }
  try {
    const opened = await openPullRequest(findBaseUrl(env), parsed);
    process.stdout.write(parsed.json ? `${JSON.stringify(opened)}\n` : `${JSON.stringify(opened, null, 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`open-pull-request failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** `KAFKA_BROKERS` when set, else the running stack's `.stack/stack.json`; undefined when neither says. */
export function findKafkaBrokers(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const given = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
  if (given.length > 0) return given;
  const stack = readStackFile(env.STACK_STATE_DIR ? resolve(repoRoot, env.STACK_STATE_DIR) : undefined);
  return stack?.kafkaBrokers && stack.kafkaBrokers.length > 0 ? stack.kafkaBrokers : undefined;
}

export interface RedriveArguments {
  topic: BaseTopicName;
  group?: string;
  dryRun: boolean;
  limit?: number;
  json: boolean;
}

/** The arguments of `redrive-dlq`, or why they are wrong. */
export function parseRedriveArguments(args: readonly string[]): RedriveArguments | string {
  let topic: string | undefined;
  const parsed: Omit<RedriveArguments, 'topic'> = { dryRun: false, json: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--dry-run') parsed.dryRun = true;
    else if (arg === '--json') parsed.json = true;
    else if (arg === '--group' || arg === '--limit') {
      const value = args[++i];
      if (value === undefined || value.startsWith('--')) return `${arg} needs a value`;
      if (arg === '--group') parsed.group = value;
      else if (!/^[1-9]\d*$/.test(value)) return '--limit must be a positive integer';
      else parsed.limit = Number(value);
    } else if (arg.startsWith('--') || topic !== undefined) return `unexpected argument ${arg}`;
    else topic = arg;
  }
  if (topic === undefined) return 'the topic is missing';
  if (topic.endsWith('.dlq')) topic = topic.slice(0, -'.dlq'.length);
  if (!isTopicName(topic)) return `unknown topic ${topic}`;
  return { ...parsed, topic: topic as BaseTopicName };
}

function describeLine(line: RedriveLine): string {
  const where = `${line.deadLetterTopic}[${line.partition}]@${line.offset}`;
  const original = line.original
    ? ` ${line.original.topic}[${line.original.partition}]@${line.original.offset} key=${line.original.key ?? '-'} id=${line.original.messageId ?? '-'}`
    : '';
  const why = line.error ? ` (${line.error.kind ?? 'handler'} in ${line.error.consumerGroup}: ${line.error.message})` : '';
  return `${line.action}${line.reason ? ` (${line.reason})` : ''} ${where}${original}${why}`;
}

function describeSummary(summary: RedriveSummary): string {
  const did = summary.dryRun ? `${summary.wouldRedrive} would be re-driven` : `${summary.redriven} re-driven`;
  return `${summary.deadLetterTopic}: ${did}, ${summary.skipped} skipped, ${summary.left} left (group ${summary.groupId}${summary.dryRun ? ', dry run: nothing committed' : ''})`;
}

/** `redrive-dlq`: the dead letters of a topic back onto it (logic in @ars/bus redriveDeadLetters). */
async function redriveCommand(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseRedriveArguments(args);
  if (typeof parsed === 'string') {
    process.stderr.write(`redrive-dlq: ${parsed}\n${USAGE}\n`);
    return 1;
  }
  const brokers = findKafkaBrokers(env);
  if (!brokers) {
    process.stderr.write('redrive-dlq: no Kafka brokers: set KAFKA_BROKERS (host:port,...) or start the stack with npm start\n');
    return 1;
  }
  try {
    const summary = await redriveDeadLetters({
      brokers,
      topic: parsed.topic,
      consumerGroup: parsed.group,
      dryRun: parsed.dryRun,
      limit: parsed.limit,
      onLine: (line) => process.stdout.write(`${parsed.json ? JSON.stringify(line) : describeLine(line)}\n`),
    });
    process.stdout.write(`${parsed.json ? JSON.stringify({ summary }) : describeSummary(summary)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`redrive-dlq failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/**
 * `disable-user`: the gateway's own offboarding command (services/gateway/dist/disableUserCommand.js,
 * what `kubectl exec` runs in a cluster), given this stack's address and internal token.
 */
function disableUserCommand(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const internalToken = env.INTERNAL_TOKEN ?? readStackFile(env.STACK_STATE_DIR ? resolve(repoRoot, env.STACK_STATE_DIR) : undefined)?.internalToken;
  if (!internalToken) {
    process.stderr.write('disable-user: no internal token: set INTERNAL_TOKEN or start the stack with npm start\n');
    return Promise.resolve(1);
  }
  const child = spawn(process.execPath, [resolve(repoRoot, 'services/gateway/dist/disableUserCommand.js'), ...args], {
    env: { ...env, ARS_BASE_URL: findBaseUrl(env), INTERNAL_TOKEN: internalToken },
    stdio: 'inherit',
  });
  return new Promise((done) => child.on('close', (code) => done(code ?? 1)));
}

/** Runs the command; returns the exit code. Output: one JSON object on stdout, or one line on stderr. */
export async function main(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...flags] = args;
  if (command === 'redrive-dlq') return redriveCommand(flags, env);
  if (command === 'open-pull-request') return openPullRequestCommand(flags, env);
  if (command === 'disable-user') return disableUserCommand(flags, env);
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
