// Test support for the Kubernetes provider: a real local bare repository made with the git CLI,
// and a client wired to a stand-in API server.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesStandIn } from '@ars/kubernetes-stand-in';
import { KubernetesPods } from './kubernetesPods.js';
import { buildSandboxManifests, type SandboxManifests, type SandboxPodInput } from './podManifest.js';

export const NAMESPACE = 'ars-sandboxes';

export interface BareRepository {
  /** The bare repository's path (a clone URL git understands). */
  url: string;
  remove(): Promise<void>;
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
    },
  });
}

/** A bare repository with `main` (README.md, packages/web/index.js) and `feature` (one more file). */
export async function bareRepository(): Promise<BareRepository> {
  const root = await mkdtemp(join(tmpdir(), 'k8s-repo-'));
  const bare = join(root, 'origin.git');
  const work = join(root, 'work');
  git(['init', '--quiet', '--bare', '--initial-branch=main', bare], root);
  git(['init', '--quiet', '--initial-branch=main', work], root);
  await writeFile(join(work, 'README.md'), '# app\n');
  await mkdir(join(work, 'packages', 'web'), { recursive: true });
  await writeFile(join(work, 'packages', 'web', 'index.js'), 'console.log("web");\n');
  git(['add', '-A'], work);
  git(['commit', '--quiet', '-m', 'first'], work);
  git(['checkout', '--quiet', '-b', 'feature'], work);
  await writeFile(join(work, 'FEATURE.md'), 'feature\n');
  git(['add', '-A'], work);
  git(['commit', '--quiet', '-m', 'feature'], work);
  git(['push', '--quiet', bare, 'main', 'feature'], work);
  return { url: bare, remove: () => rm(root, { recursive: true, force: true }) };
}

export function sandboxId(): string {
  return `k8s-${randomBytes(8).toString('hex')}`;
}

export function manifests(overrides: Partial<SandboxPodInput> & { cloneUrl: string }): SandboxManifests {
  return buildSandboxManifests({
    sandboxId: sandboxId(),
    namespace: NAMESPACE,
    image: 'ghcr.io/acme/ars-sandbox:1',
    gitImage: 'alpine/git:2.47.2',
    resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } },
    baseBranch: 'main',
    workingBranch: 'ars/run-1',
    createBranch: true,
    rootDirectory: null,
    ...overrides,
  });
}

export function client(standIn: KubernetesStandIn, token: string = standIn.token, namespace: string = NAMESPACE): KubernetesPods {
  return new KubernetesPods({ config: { kind: 'server', server: standIn.url, token }, namespace, pollIntervalMs: 25, readyTimeoutMs: 30_000 });
}

/** Collects an exec's output as text. */
export function output(): { stdout: () => string; stderr: () => string; onStdout: (chunk: Buffer) => void; onStderr: (chunk: Buffer) => void } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  return {
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
    onStdout: (chunk) => out.push(chunk),
    onStderr: (chunk) => err.push(chunk),
  };
}
