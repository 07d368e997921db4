import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ArsApiError, createApi, type ArsApi, type Harness, type Run, type StartRunBody, type TriggerBody } from './api.js';
import { credentialsPath, readCredentials, removeCredentials, resolveAccess, writeCredentials } from './credentials.js';
import { browserLogin, defaultClientName, openInBrowser } from './login.js';
import { CliError, errorLine, EXIT, exitCodeOf, maskedServer, printFields, printJson, printTable, RunProgress, runSummaryLine } from './output.js';

export const VERSION = '0.1.0';

interface GlobalOptions {
  baseUrl?: string;
  token?: string;
  json?: boolean;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('must be a positive integer');
  return parsed;
}

/**
 * A command's action: its work gets the options (the command's and the global ones) and its
 * arguments, and answers the exit code (EXIT.ok when it says none); an error is printed as one line
 * (`errorLine`) and exits EXIT.error.
 */
function act<O extends GlobalOptions, A extends unknown[]>(work: (options: O, ...args: A) => Promise<number | void>) {
  return async (...args: unknown[]): Promise<void> => {
    const command = args[args.length - 1] as Command;
    try {
      const code = await work(command.optsWithGlobals<O>(), ...(args.slice(0, -2) as A));
      process.exitCode = code ?? EXIT.ok;
    } catch (error) {
      process.stderr.write(`${errorLine(error)}\n`);
      process.exitCode = EXIT.error;
    }
  };
}

/** The API as the resolved token (`--token`, `ARS_TOKEN`, the credentials file); none is an error before any call. */
async function apiOf(globals: GlobalOptions): Promise<ArsApi> {
  const access = await resolveAccess(globals);
  if (!access.token) throw new CliError('NOT_LOGGED_IN', 'No token: run ars login, or give --token or ARS_TOKEN');
  return createApi({ baseUrl: access.baseUrl, token: access.token, userAgent: `ars/${VERSION}` });
}

/** A repository by its id or its `full_name` (owner/name). */
async function repoIdOf(api: ArsApi, repo: string): Promise<string> {
  const { repos } = await api.repos.list({ limit: 200 });
  const found = repos.find((r) => r.id === repo) ?? repos.find((r) => r.full_name.toLowerCase() === repo.toLowerCase());
  if (!found) throw new CliError('NOT_FOUND', `No repository ${repo} among yours (ars repos lists them)`);
  return found.id;
}

/**
 * Follows a run to its end on the live event stream: each event printed as it comes (a progress line
 * under them on a terminal), then the run's status. Ctrl-C stops following (the run goes on).
 */
async function follow(api: ArsApi, runId: string, json: boolean): Promise<number> {
  const progress = json ? undefined : new RunProgress(runId);
  const controller = new AbortController();
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  const events = [];
  let last: Run | undefined;
  try {
    for await (const item of api.runs.follow(runId, { signal: controller.signal })) {
      if (item.type === 'event') {
        events.push(item.event);
        progress?.event(item.event);
      } else {
        last = item.run;
        progress?.run(item.run);
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    process.off('SIGINT', interrupt);
    progress?.stop();
  }
  if (controller.signal.aborted) {
    process.stderr.write(`stopped following; the run goes on (ars runs cancel ${runId})\n`);
    return EXIT.cancelled;
  }
  // The stream ends once the run is terminal; its last word is read back to be sure of the outcome.
  const { run } = last && ['success', 'failed', 'cancelled'].includes(last.status) ? { run: last } : await api.runs.get(runId);
  if (json) printJson({ run, events });
  else process.stdout.write(`${runSummaryLine(run)}\n`);
  return exitCodeOf(run);
}

function loginCommand(): Command {
  return new Command('login')
    .description('sign in with the browser: a new token for this command line, stored in the config directory')
    .option('--no-browser', 'print the URL instead of opening the browser')
    .option('--scopes <scopes>', 'read, write or read,write', 'read,write')
    .option('--client-name <name>', 'how the consent page names this command line', defaultClientName())
    .addOption(new Option('--timeout <seconds>', 'how long to wait for the browser').argParser(positiveInteger).default(300))
    .action(
      act(async (globals: GlobalOptions & { browser: boolean; scopes: string; clientName: string; timeout: number }) => {
        const { baseUrl } = await resolveAccess({ ...globals, token: undefined });
        const token = await browserLogin({
          baseUrl,
          scopes: globals.scopes,
          clientName: globals.clientName,
          timeoutMs: globals.timeout * 1000,
          onUrl: (url) => {
            process.stderr.write(
              `${globals.browser ? 'Opening your browser; if it does not open, visit' : 'Open this URL in a browser to sign in'}:\n  ${url}\nWaiting for the browser…\n`,
            );
            if (globals.browser) openInBrowser(url);
          },
        });
        const file = await writeCredentials({ baseUrl, token: token.token, prefix: token.prefix, scopes: token.scopes, expiresAt: token.expiresAt });
        const shown = { baseUrl, id: token.id, prefix: token.prefix, scopes: token.scopes, expiresAt: token.expiresAt, credentialsFile: file };
        if (globals.json) printJson(shown);
        else
          process.stdout.write(`Signed in to ${baseUrl}: token ${token.prefix}… (${token.scopes.join(', ')}), expires ${token.expiresAt}\nStored in ${file}\n`);
      }),
    );
}

function logoutCommand(): Command {
  return new Command('logout').description('revoke this command line’s token and forget it').action(
    act(async (globals: GlobalOptions) => {
      const access = await resolveAccess(globals);
      const stored = await readCredentials();
      if (!access.token) throw new CliError('NOT_LOGGED_IN', 'Not logged in: no token to revoke');
      let revoked: { revoked: boolean; id: string | null };
      try {
        revoked = await createApi({ baseUrl: access.baseUrl, token: access.token }).apiKeys.revokeCurrent();
      } catch (error) {
        // A token the service no longer accepts is as good as revoked: forget it all the same.
        if (!(error instanceof ArsApiError && error.status === 401)) throw error;
        revoked = { revoked: false, id: null };
      }
      const forgot = stored?.token === access.token;
      if (forgot) await removeCredentials();
      if (globals.json) printJson({ ...revoked, credentialsRemoved: forgot });
      else
        process.stdout.write(
          `${revoked.revoked ? `Revoked token ${revoked.id}` : 'The token was no longer valid'}${forgot ? `; removed ${credentialsPath()}` : ''}\n`,
        );
    }),
  );
}

function whoamiCommand(): Command {
  return new Command('whoami').description('which token and service this command line uses, and whether the token works').action(
    act(async (globals: GlobalOptions) => {
      const access = await resolveAccess(globals);
      const stored = await readCredentials();
      if (!access.token) throw new CliError('NOT_LOGGED_IN', 'Not logged in: run ars login, or give --token or ARS_TOKEN');
      await createApi({ baseUrl: access.baseUrl, token: access.token }).repos.list({ limit: 1 });
      const fromFile = access.tokenSource === 'credentials' ? stored : undefined;
      const shown = {
        baseUrl: access.baseUrl,
        tokenSource: access.tokenSource,
        prefix: fromFile?.prefix ?? access.token.slice(0, 12),
        scopes: fromFile?.scopes ?? null,
        expiresAt: fromFile?.expiresAt ?? null,
        valid: true,
      };
      if (globals.json) printJson(shown);
      else printFields(shown);
    }),
  );
}

function reposCommand(): Command {
  return new Command('repos')
    .description('your repositories')
    .option('-q, --query <text>', 'only those whose name contains it')
    .addOption(new Option('--limit <n>').argParser(positiveInteger))
    .action(
      act(async (globals: GlobalOptions & { query?: string; limit?: number }) => {
        const data = await (await apiOf(globals)).repos.list({ q: globals.query, limit: globals.limit });
        if (globals.json) return printJson(data);
        printTable(
          ['ID', 'FULL_NAME', 'DEFAULT_BRANCH'],
          data.repos.map((r) => [r.id, r.full_name, r.default_branch]),
        );
      }),
    );
}

function runCommand(): Command {
  return new Command('run')
    .description('start an agent run on a repository (by id or owner/name)')
    .argument('<repo>', 'repository id or full name')
    .argument('<prompt>', 'what the agent should do')
    .addOption(new Option('--harness <harness>', 'the agent harness').choices(['codex', 'claude-code']))
    .option('--branch <name>', 'the base branch (default: the repository’s default branch)')
    .option('--working-branch <name>', 'the branch to work on (default: the base branch)')
    .option('--create-branch', 'work on a new branch (named from the request unless --working-branch)')
    .option('--follow', 'print the run’s events live until it ends; the exit code tells the outcome')
    .action(
      act(
        async (
          globals: GlobalOptions & { harness?: string; branch?: string; workingBranch?: string; createBranch?: boolean; follow?: boolean },
          repo: string,
          prompt: string,
        ) => {
          const api = await apiOf(globals);
          const body: StartRunBody = { repoId: await repoIdOf(api, repo), prompt };
          // commander's choices() let only the two harnesses through.
          if (globals.harness) body.harness = globals.harness as Harness;
          if (globals.branch) body.baseBranch = globals.branch;
          if (globals.workingBranch) body.workingBranch = globals.workingBranch;
          if (globals.createBranch) body.createBranch = true;
          const run = await api.runs.start(body);
          if (!globals.follow) {
            if (globals.json) return printJson(run);
            process.stdout.write(`${runSummaryLine(run)}${run.replayed ? ' (replayed)' : ''}\nfollow it: ars runs events ${run.runId} --follow\n`);
            return;
          }
          if (!globals.json) process.stderr.write(`run ${run.runId} started on ${run.branch.working}\n`);
          return follow(api, run.runId, globals.json === true);
        },
      ),
    );
}

function runsCommand(): Command {
  const runs = new Command('runs').description('one run: get, events, cancel');
  runs
    .command('get')
    .description('a run’s status')
    .argument('<runId>')
    .action(
      act(async (globals: GlobalOptions, runId: string) => {
        const data = await (await apiOf(globals)).runs.get(runId);
        if (globals.json) return printJson(data);
        const { run } = data;
        printFields({
          runId: run.runId,
          status: run.status,
          repoId: run.repoId,
          harness: run.harness,
          branch: run.branch.working,
          createdAt: run.createdAt,
          updatedAt: run.updatedAt,
          error: run.error,
        });
      }),
    );
  runs
    .command('events')
    .description('a run’s events, oldest first (--follow: live until it ends)')
    .argument('<runId>')
    .addOption(new Option('--limit <n>').argParser(positiveInteger))
    .option('--after <eventId>', 'only the events after this one')
    .option('--follow', 'print the events live until the run ends; the exit code tells the outcome')
    .action(
      act(async (globals: GlobalOptions & { limit?: number; after?: string; follow?: boolean }, runId: string) => {
        const api = await apiOf(globals);
        if (globals.follow) return follow(api, runId, globals.json === true);
        const data = await api.runs.events(runId, { limit: globals.limit, after: globals.after });
        if (globals.json) return printJson(data);
        const progress = new RunProgress(runId, false);
        for (const event of data.events) progress.event(event);
        process.stdout.write(`${runSummaryLine(data.run)}\n`);
      }),
    );
  runs
    .command('cancel')
    .description('cancel a run (idempotent)')
    .argument('<runId>')
    .action(
      act(async (globals: GlobalOptions, runId: string) => {
        const data = await (await apiOf(globals)).runs.cancel(runId);
        if (globals.json) return printJson(data);
        process.stdout.write(`run ${data.run.runId} ${data.status}\n`);
      }),
    );
  return runs;
}

function sandboxesCommand(): Command {
  return new Command('sandboxes')
    .description('your sandboxes')
    .option('--repo <repo>', 'only this repository’s (id or full name)')
    .option('--status <status>')
    .addOption(new Option('--limit <n>').argParser(positiveInteger))
    .action(
      act(async (globals: GlobalOptions & { repo?: string; status?: string; limit?: number }) => {
        const api = await apiOf(globals);
        const repoId = globals.repo ? await repoIdOf(api, globals.repo) : undefined;
        const data = await api.sandboxes.list({ repoId, status: globals.status, limit: globals.limit });
        if (globals.json) return printJson(data);
        printTable(
          ['ID', 'STATUS', 'REPO', 'WORKING_BRANCH', 'LAST_ACTIVE'],
          data.sandboxes.map((s) => [s.id, s.status, s.repo_id, s.working_branch, s.last_active_at]),
        );
      }),
    );
}

function automationsCommand(): Command {
  const automations = new Command('automations').description('automations: list, get, trigger, runs');
  automations
    .command('list')
    .description('your automations (one page; --cursor for the next)')
    .addOption(new Option('--limit <n>').argParser(positiveInteger))
    .option('--cursor <cursor>', 'the nextCursor of the previous page')
    .action(
      act(async (globals: GlobalOptions & { limit?: number; cursor?: string }) => {
        const data = await (await apiOf(globals)).automations.list({ limit: globals.limit, cursor: globals.cursor });
        if (globals.json) return printJson(data);
        printTable(
          ['ID', 'STATUS', 'NAME'],
          data.automations.map((a) => [a.id, a.status, a.name]),
        );
        if (data.nextCursor) process.stdout.write(`more: ars automations list --cursor ${data.nextCursor}\n`);
      }),
    );
  automations
    .command('get')
    .description('one automation, whole')
    .argument('<automationId>')
    .action(act(async (globals: GlobalOptions, id: string) => printJson(await (await apiOf(globals)).automations.get(id))));
  automations
    .command('trigger')
    .description('run an automation on a repository')
    .argument('<automationId>')
    .argument('<repo>', 'repository id or full name')
    .option('--input <json>', 'the input object, as JSON')
    .option('--idempotency-key <key>', 'the same key makes a retry a replay (default: a new key)')
    .action(
      act(async (globals: GlobalOptions & { input?: string; idempotencyKey?: string }, id: string, repo: string) => {
        let input: TriggerBody['input'];
        try {
          input = globals.input === undefined ? undefined : (JSON.parse(globals.input) as TriggerBody['input']);
        } catch {
          throw new CliError('BAD_REQUEST', '--input must be a JSON object');
        }
        const api = await apiOf(globals);
        const data = await api.automations.trigger(
          id,
          { repoId: await repoIdOf(api, repo), ...(input ? { input } : {}) },
          { idempotencyKey: globals.idempotencyKey },
        );
        if (globals.json) return printJson(data);
        printFields(data.run);
      }),
    );
  automations
    .command('runs')
    .description('an automation’s recent runs')
    .argument('<automationId>')
    .addOption(new Option('--limit <n>').argParser(positiveInteger))
    .action(
      act(async (globals: GlobalOptions & { limit?: number }, id: string) => {
        const data = await (await apiOf(globals)).automations.runs(id, { limit: globals.limit });
        if (globals.json) return printJson(data);
        printTable(
          ['ID', 'STATUS', 'CREATED'],
          data.runs.map((run) => [run.id, run.status, run.createdAt]),
        );
      }),
    );
  return automations;
}

function prReviewCommand(): Command {
  const prReview = new Command('pr-review').description('pull request reviews');
  prReview
    .command('rerun')
    .description('queue a fresh review of a pull request')
    .argument('<repo>', 'repository id or full name')
    .argument('<prNumber>', 'the pull request number', positiveInteger)
    .action(
      act(async (globals: GlobalOptions, repo: string, prNumber: number) => {
        const api = await apiOf(globals);
        const data = await api.prReviews.rerun({ repoId: await repoIdOf(api, repo), prNumber });
        if (globals.json) return printJson(data);
        printFields(data);
      }),
    );
  return prReview;
}

function mcpServersCommand(): Command {
  return new Command('mcp-servers').description('your external tool servers (secret values masked)').action(
    act(async (globals: GlobalOptions) => {
      const { servers } = await (await apiOf(globals)).mcpServers.list();
      const masked = servers.map(maskedServer);
      if (globals.json) return printJson({ servers: masked });
      printTable(
        ['NAME', 'ENABLED', 'CONFIG'],
        masked.map((s) => [s.name, s.enabled, JSON.stringify(s.config)]),
      );
    }),
  );
}

export function program(): Command {
  const root = new Command('ars')
    .description('The Agent Run Service from the command line.')
    .version(VERSION)
    .option('--base-url <url>', 'the service (default: ARS_BASE_URL, the stored login, http://127.0.0.1:8080)')
    .option('--token <token>', 'a personal access token (default: ARS_TOKEN, then the stored login)')
    .option('--json', 'print the answer’s data as JSON');
  for (const command of [
    loginCommand(),
    logoutCommand(),
    whoamiCommand(),
    reposCommand(),
    runCommand(),
    runsCommand(),
    sandboxesCommand(),
    automationsCommand(),
    prReviewCommand(),
    mcpServersCommand(),
  ]) {
    root.addCommand(command);
  }
  // Usage errors come back to main() as exceptions (exit code EXIT.error), in every subcommand.
  const inherit = (command: Command): void => {
    command.exitOverride().showHelpAfterError();
    command.commands.forEach(inherit);
  };
  inherit(root);
  return root;
}

/** Parses and runs; usage errors exit EXIT.error (help and --version 0). */
export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.error;
      return;
    }
    throw error;
  }
}
