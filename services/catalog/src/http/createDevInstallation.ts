import { randomBytes } from 'node:crypto';
import { AppError } from '@ars/errors';
import { ok, validateBody, type Router, requestBody } from '@ars/http-app';
import type { CatalogDeps } from './deps.js';
import { toRepo } from './repoView.js';
import { recordRepositories } from '../sourceHost/installationRepositories.js';

interface DevInstallationBody {
  userId: string;
  repoCount: number;
}

const parseDevInstallation = validateBody<DevInstallationBody>({
  type: 'object',
  required: ['userId'],
  additionalProperties: false,
  properties: {
    userId: { type: 'string', minLength: 1, maxLength: 200 },
    repoCount: { type: 'integer', minimum: 2, maximum: 20, default: 2 },
  },
});

const REPO_NAMES = ['web-app', 'api-server', 'infra', 'docs', 'mobile-app', 'data-pipeline'];

/**
 * `POST /internal/dev/installations` `{userId, repoCount?}` → 201 `{installation, repos}`: a new local
 * installation under a fresh owner with `repoCount` real bare git repositories (branch `main`, one
 * commit). 404 `NOT_FOUND` under `ARS_ENV=production`, as if the route did not exist.
 */
export function createDevInstallation(router: Router, deps: CatalogDeps): void {
  router.post('/dev/installations', async (ctx) => {
    if (deps.production) throw AppError.notFound(`No route for ${ctx.method} ${ctx.path}`);
    const body = parseDevInstallation(requestBody(ctx));
    const id = await deps.installations.nextId();
    const account = `dev-${id}-${randomBytes(3).toString('hex')}`;
    const names = Array.from({ length: body.repoCount }, (_, i) => REPO_NAMES[i] ?? `repo-${i + 1}`);
    for (const name of names) {
      await deps.localHost.createRepository({
        owner: account,
        name,
        files: { 'README.md': `# ${account}/${name}\n\nA development repository of the local source host.\n` },
      });
    }
    const installation = await deps.installations.createLocal({ id, userId: body.userId, account });
    const repos = await recordRepositories(deps, installation._id, await deps.localHost.listRepositories({ account, externalId: null }));
    await deps.access.grant(body.userId, 'local', installation._id, repos);
    deps.logger.info({ installation_id: installation._id, account, repos: repos.length }, 'development installation created');
    ok(
      ctx,
      {
        installation: { id: installation._id, account, provider: 'local' },
        repos: repos.map((repo) => {
          const view = toRepo(repo);
          return { id: view.id, full_name: view.full_name, default_branch: view.default_branch };
        }),
      },
      201,
    );
  });
}
