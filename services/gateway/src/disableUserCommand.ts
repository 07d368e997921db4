// `node services/gateway/dist/disableUserCommand.js <usr_… id or email> [--json]`: offboards a user
// through the running gateway's `POST /internal/admin/users/disable` (http/disableUser.ts). In a
// cluster: `kubectl exec deploy/<release>-agent-run-service-gateway -- node
// services/gateway/dist/disableUserCommand.js <user>` (the container has the gateway's PORT and
// INTERNAL_TOKEN); locally `npm run admin -- disable-user <user>` runs this with the stack's.
// Exit 0 and one line (or one JSON object) on stdout; 1 and one line on stderr.
import { pathToFileURL } from 'node:url';
import { DISABLE_USER_PATH, type DisabledUser } from './http/disableUser.js';

const USAGE = 'usage: disable-user <usr_… id or email> [--json]  (env: INTERNAL_TOKEN; ARS_BASE_URL, default http://127.0.0.1:$PORT)';

export async function disableUserCommand(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const json = args.includes('--json');
  const rest = args.filter((arg) => arg !== '--json');
  const [who] = rest;
  if (rest.length !== 1 || !who) {
    process.stderr.write(`${USAGE}\n`);
    return 1;
  }
  const token = env.INTERNAL_TOKEN;
  if (!token) {
    process.stderr.write('disable-user: INTERNAL_TOKEN is not set (the gateway’s internal token)\n');
    return 1;
  }
  const baseUrl = (env.ARS_BASE_URL ?? `http://127.0.0.1:${env.PORT ?? '8080'}`).replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${DISABLE_USER_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-token': token, 'x-caller-service': 'disable-user' },
      body: JSON.stringify({ user: who }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    process.stderr.write(`disable-user: no gateway answers at ${baseUrl} (${error instanceof Error ? error.message : String(error)})\n`);
    return 1;
  }
  const envelope = (await response.json().catch(() => ({}))) as { ok?: boolean; data?: DisabledUser; error?: { code: string; message: string } };
  if (!response.ok || !envelope.data) {
    process.stderr.write(`disable-user refused: ${envelope.error ? `${envelope.error.code}: ${envelope.error.message}` : `HTTP ${response.status}`}\n`);
    return 1;
  }
  const done = envelope.data;
  process.stdout.write(
    json
      ? `${JSON.stringify(done)}\n`
      : `${done.user.id}${done.user.email ? ` (${done.user.email})` : ''} disabled: ${done.sessionsEnded} sessions ended, ${done.tokensRevoked} tokens revoked, ${done.oauthGrantsRevoked} OAuth grants revoked\n`,
  );
  return 0;
}

// Run as a program (not imported): the command line.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await disableUserCommand(process.argv.slice(2), process.env);
}
