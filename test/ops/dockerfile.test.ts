// deploy/containers/Dockerfile, linted and held to the image policy (deploy/containers/README.md):
// no lint diagnostic (dockerfile-utils), base images pinned by tag and never `latest`, multi-stage
// with the runtime copying from the build stage, `npm ci` then `npm prune --omit=dev`, a non-root
// numeric USER in the runtime stage, `ENTRYPOINT ["node"]`, a service's dist/main.js as CMD, and
// every file copied from the build context present in the repository. The image itself cannot be
// built here (no container engine or registry).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DOCKERFILE = readFileSync(join(root, 'deploy/containers/Dockerfile'), 'utf8');
const SERVICES = readdirSync(join(root, 'services'));

/** The instructions of one stage: from its FROM to the next. */
function stages(text: string): { from: Instruction; image: string; tag: string | null; name: string | null; body: Instruction[] }[] {
  const parsed = DockerfileParser.parse(text);
  const out: ReturnType<typeof stages> = [];
  for (const instruction of parsed.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const from = parsed.getFROMs().find((f) => f.getRange().start.line === instruction.getRange().start.line)!;
      out.push({ from: instruction, image: from.getImageName() ?? '', tag: from.getImageTag(), name: from.getBuildStage(), body: [] });
    } else out.at(-1)?.body.push(instruction);
  }
  return out;
}

const args = (instruction: Instruction): string => instruction.getArgumentsContent() ?? '';
const jsonArgs = (instruction: Instruction): string[] | null => {
  try {
    const value: unknown = JSON.parse(args(instruction));
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : null;
  } catch {
    return null;
  }
};

/** Every policy rule the Dockerfile breaks (empty: it follows them all). */
function policyProblems(text: string): string[] {
  const problems: string[] = [];
  const all = stages(text);
  if (all.length < 2) problems.push('not multi-stage: a build stage and a runtime stage are expected');
  for (const stage of all) {
    if (stage.image !== 'node') problems.push(`FROM ${stage.image}: the base image is node (node:20-bookworm-slim)`);
    if (!stage.tag) problems.push(`FROM ${stage.image} has no tag: pin it`);
    else if (stage.tag === 'latest') problems.push(`FROM ${stage.image}:latest: pin a version`);
    else if (!stage.tag.startsWith('20-bookworm-slim')) problems.push(`FROM ${stage.image}:${stage.tag}: node:20-bookworm-slim is the base`);
  }
  const runtime = all.at(-1);
  const build = all.slice(0, -1);
  const runs = build.flatMap((stage) => stage.body.filter((i) => i.getKeyword() === 'RUN').map(args));
  if (!runs.some((run) => /\bnpm ci\b/.test(run))) problems.push('the build stage does not install with npm ci');
  if (runs.some((run) => /\bnpm (install|i)\b/.test(run))) problems.push('npm install in the build: npm ci installs the lock file exactly');
  if (!runs.some((run) => /\bnpm prune --omit=dev\b/.test(run))) problems.push('no npm prune --omit=dev: dev dependencies would ship');
  if (runtime) {
    const body = runtime.body;
    const copies = body.filter((i) => i.getKeyword() === 'COPY');
    const fromBuild = copies.filter((copy) =>
      build.some((stage) => stage.name !== null && new RegExp(`--from=${stage.name}(\\s|$)`).test(rawText(text, copy))),
    );
    if (fromBuild.length === 0) problems.push('the runtime stage copies nothing from a build stage');
    const user = body.filter((i) => i.getKeyword() === 'USER').at(-1);
    const uid = user ? args(user).split(':')[0] : undefined;
    if (!user) problems.push('no USER in the runtime stage: it would run as root');
    else if (!/^[1-9][0-9]*$/.test(uid ?? '') || uid === '0') problems.push(`USER ${args(user)}: a numeric non-root uid (10001), so runAsNonRoot can check it`);
    else if (uid !== '10001') problems.push(`USER ${args(user)}: the chart runs uid 10001`);
    const workdir = body.filter((i) => i.getKeyword() === 'WORKDIR').at(-1);
    if (!workdir || args(workdir) !== '/app') problems.push('the runtime WORKDIR is /app');
    const entrypoints = body.filter((i) => i.getKeyword() === 'ENTRYPOINT');
    if (entrypoints.length !== 1 || JSON.stringify(jsonArgs(entrypoints[0]!)) !== '["node"]') problems.push('ENTRYPOINT ["node"] (exec form), once');
    const cmd = body.filter((i) => i.getKeyword() === 'CMD').at(-1);
    const command = cmd ? jsonArgs(cmd) : null;
    const service = /^services\/([^/]+)\/dist\/main\.js$/.exec(command?.at(-1) ?? '')?.[1];
    if (!command || !service || !SERVICES.includes(service))
      problems.push(`CMD ${cmd ? args(cmd) : '(none)'}: a service's services/<name>/dist/main.js, exec form`);
  }
  return problems;
}

/** The instruction's text as written (flags included). */
function rawText(text: string, instruction: Instruction): string {
  const { start, end } = instruction.getRange();
  return text
    .split('\n')
    .slice(start.line, end.line + 1)
    .join('\n');
}

describe('the Dockerfile has no lint diagnostic (dockerfile-utils)', () => {
  test('validate() reports nothing', () => {
    expect(validate(DOCKERFILE).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });
  test('a broken instruction is reported (the linter is really reading the file)', () => {
    expect(validate(`${DOCKERFILE}\nEXPOSE notaport\n`).length).toBeGreaterThan(0);
  });
});

describe('the image policy: pinned node base, multi-stage, npm ci and prune, non-root uid 10001, ENTRYPOINT node, a service as CMD', () => {
  test('the Dockerfile follows every rule', () => {
    expect(policyProblems(DOCKERFILE)).toEqual([]);
  });
  test.each([
    ['an unpinned base', (t: string) => t.replace(/FROM node:20-bookworm-slim AS runtime/, 'FROM node AS runtime'), 'has no tag'],
    ['latest', (t: string) => t.replace(/FROM node:20-bookworm-slim AS runtime/, 'FROM node:latest AS runtime'), ':latest'],
    ['root', (t: string) => t.replace(/^USER .*$/m, 'USER root'), 'numeric non-root uid'],
    ['no USER', (t: string) => t.replace(/^USER .*$/m, ''), 'no USER'],
    ['a shell-form entrypoint', (t: string) => t.replace(/^ENTRYPOINT .*$/m, 'ENTRYPOINT node'), 'ENTRYPOINT ["node"]'],
    ['one stage', (t: string) => t.slice(t.indexOf('FROM node:20-bookworm-slim AS runtime')), 'not multi-stage'],
    ['npm install', (t: string) => t.replace('RUN npm ci', 'RUN npm install'), 'npm ci'],
    ['an unknown service', (t: string) => t.replace(/^CMD .*$/m, 'CMD ["services/nope/dist/main.js"]'), "a service's services/<name>/dist/main.js"],
  ])('a Dockerfile with %s breaks the policy', (_what, mutate, expected) => {
    expect(policyProblems(mutate(DOCKERFILE)).join('\n')).toContain(expected);
  });
});

describe('what the build copies from the context exists, and .dockerignore keeps the rest out', () => {
  test('every COPY source without --from is a file or folder of the repository', () => {
    const sources = stages(DOCKERFILE)
      .flatMap((stage) => stage.body)
      .filter((i) => i.getKeyword() === 'COPY' && !/--from=/.test(rawText(DOCKERFILE, i)))
      .flatMap((i) => args(i).split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((source) => !existsSync(join(root, source)))).toEqual([]);
  });
  test('.dockerignore leaves out node_modules, dist, .git and the local stack state', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git', '.stack']));
  });
});
