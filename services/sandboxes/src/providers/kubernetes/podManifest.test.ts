import { describe, expect, it } from '@jest/globals';
import {
  buildSandboxManifests,
  CLONE_PROXY_KEY,
  CLONE_URL_KEY,
  HOME_DIR,
  INIT_CONTAINER,
  MAIN_CONTAINER,
  ManifestError,
  quantityValue,
  REPO_DIR,
  SANDBOX_ID_LABEL,
  type SandboxPodInput,
} from './podManifest.js';

const CLONE_URL = 'https://x-access-token:ghs_secret123@github.com/acme/app.git';

function input(overrides: Partial<SandboxPodInput> = {}): SandboxPodInput {
  return {
    sandboxId: 'k8s-0123456789abcdef',
    namespace: 'ars-sandboxes',
    image: 'ghcr.io/acme/ars-sandbox:1',
    gitImage: 'alpine/git:2.47.2',
    resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '4Gi' } },
    cloneUrl: CLONE_URL,
    baseBranch: 'main',
    workingBranch: 'ars/run-1',
    createBranch: true,
    rootDirectory: null,
    ...overrides,
  };
}

function problem(overrides: Partial<SandboxPodInput>): ManifestError {
  try {
    buildSandboxManifests(input(overrides));
  } catch (error) {
    if (error instanceof ManifestError) return error;
    throw error;
  }
  throw new Error('expected a ManifestError');
}

describe('the clone URL lives in the Secret only', () => {
  it('is base64 in the Secret and reaches the init container through a secretKeyRef, nowhere else in plain text', () => {
    const { secret, pod } = buildSandboxManifests(input());
    expect(Buffer.from(secret.data?.[CLONE_URL_KEY] ?? '', 'base64').toString('utf8')).toBe(CLONE_URL);
    expect(JSON.stringify(pod)).not.toContain('ghs_secret123');
    const init = pod.spec?.initContainers?.[0];
    expect(init?.env?.find((e) => e.name === 'CLONE_URL')?.valueFrom?.secretKeyRef).toEqual({ name: secret.metadata?.name, key: CLONE_URL_KEY });
    const main = pod.spec?.containers[0];
    expect(JSON.stringify(main)).not.toContain('CLONE_URL');
  });
});

describe("the clone's egress proxy URL (its grant's credential) lives in the Secret only, for the init container alone", () => {
  const PROXY = 'http://ars:grant-credential-0123@10.244.0.7:8091';

  it('the four proxy variables come from the Secret, NO_PROXY is plain; the main container has none of them', () => {
    const { secret, pod } = buildSandboxManifests(input({ cloneProxy: { url: PROXY, noProxy: 'git.internal.example,10.244.0.7' } }));
    expect(Buffer.from(secret.data?.[CLONE_PROXY_KEY] ?? '', 'base64').toString('utf8')).toBe(PROXY);
    expect(JSON.stringify(pod)).not.toContain('grant-credential-0123');
    const env = pod.spec?.initContainers?.[0]?.env ?? [];
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) {
      expect(env.find((e) => e.name === name)?.valueFrom?.secretKeyRef).toEqual({ name: secret.metadata?.name, key: CLONE_PROXY_KEY });
    }
    expect(env.filter((e) => e.name === 'NO_PROXY' || e.name === 'no_proxy').map((e) => e.value)).toEqual([
      'git.internal.example,10.244.0.7',
      'git.internal.example,10.244.0.7',
    ]);
    expect(JSON.stringify(pod.spec?.containers[0])).not.toMatch(/proxy/i);
  });

  it('without a clone proxy, neither the Secret nor the Pod names one', () => {
    const { secret, pod } = buildSandboxManifests(input());
    expect(Object.keys(secret.data ?? {})).toEqual([CLONE_URL_KEY]);
    expect(JSON.stringify(pod)).not.toMatch(/proxy/i);
  });
});

describe('the init container clones into the shared /workspace volume and prepares the branches', () => {
  it('runs the git image with the branches and root directory as environment, mounting the workspace', () => {
    const { pod } = buildSandboxManifests(input({ rootDirectory: 'packages/web/' }));
    const init = pod.spec?.initContainers?.[0];
    expect(init?.name).toBe(INIT_CONTAINER);
    expect(init?.image).toBe('alpine/git:2.47.2');
    expect(init?.command?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    const env = Object.fromEntries((init?.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ BASE_BRANCH: 'main', WORKING_BRANCH: 'ars/run-1', CREATE_BRANCH: 'true', ROOT_DIRECTORY: 'packages/web' });
    expect(init?.volumeMounts).toContainEqual({ name: 'workspace', mountPath: '/workspace' });
    expect(pod.spec?.volumes).toContainEqual({ name: 'workspace', emptyDir: {} });
    expect(init?.terminationMessagePolicy).toBe('FallbackToLogsOnError');
  });

  it('says createBranch false to the script', () => {
    const { pod } = buildSandboxManifests(input({ createBranch: false }));
    expect(pod.spec?.initContainers?.[0]?.env).toContainEqual({ name: 'CREATE_BRANCH', value: 'false' });
  });
});

describe('the main container idles in the configured image so sessions are exec-ed into it', () => {
  it('uses the image, the resources, the working tree (or its root directory) and a HOME on the volume', () => {
    const plain = buildSandboxManifests(input());
    expect(plain.workingDir).toBe(REPO_DIR);
    const { pod, workingDir } = buildSandboxManifests(input({ rootDirectory: './packages/web' }));
    const main = pod.spec?.containers[0];
    expect(main?.name).toBe(MAIN_CONTAINER);
    expect(main?.image).toBe('ghcr.io/acme/ars-sandbox:1');
    expect(workingDir).toBe(`${REPO_DIR}/packages/web`);
    expect(main?.workingDir).toBe(workingDir);
    expect(main?.resources).toEqual({ requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '4Gi' } });
    expect(main?.env).toContainEqual({ name: 'HOME', value: HOME_DIR });
    expect(main?.command?.join(' ')).toContain('trap');
  });

  it('treats "", "." and null as the repository root', () => {
    for (const rootDirectory of ['', '.', null, './']) expect(buildSandboxManifests(input({ rootDirectory })).workingDir).toBe(REPO_DIR);
  });
});

describe('the Pod is locked down', () => {
  it('runs as non-root without privilege escalation, read-only root fs, no capabilities, no service account token, never restarts', () => {
    const { pod } = buildSandboxManifests(input());
    expect(pod.spec?.restartPolicy).toBe('Never');
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      expect(container.securityContext).toMatchObject({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        privileged: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    }
  });
});

describe('labels name the manager and the sandbox', () => {
  it('sets managed-by and the sandbox id on Pod and Secret; extra labels cannot override them', () => {
    const { pod, secret } = buildSandboxManifests(
      input({ labels: { team: 'web', 'app.kubernetes.io/managed-by': 'someone-else' }, serviceAccount: 'ars-sandbox', nodeSelector: { pool: 'agents' } }),
    );
    for (const labels of [pod.metadata?.labels, secret.metadata?.labels]) {
      expect(labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'agent-run-service', [SANDBOX_ID_LABEL]: 'k8s-0123456789abcdef', team: 'web' });
    }
    expect(pod.metadata?.name).toBe('k8s-0123456789abcdef');
    expect(secret.metadata?.name).toBe('k8s-0123456789abcdef-clone');
    expect(pod.spec?.serviceAccountName).toBe('ars-sandbox');
    expect(pod.spec?.nodeSelector).toEqual({ pool: 'agents' });
  });
});

describe('input a server or git would refuse is refused before anything is sent', () => {
  it.each([
    [{ sandboxId: 'Bad_Name' }, 'sandboxId'],
    [{ namespace: 'no/slash' }, 'namespace'],
    [{ image: ' ' }, 'image'],
    [{ baseBranch: 'a..b' }, 'baseBranch'],
    [{ workingBranch: '-x' }, 'workingBranch'],
    [{ workingBranch: 'has space' }, 'workingBranch'],
    [{ workingBranch: 'tab\there' }, 'workingBranch'],
    // names `git check-ref-format --branch` refuses that this file's own copy of the rules let through
    [{ workingBranch: 'wip.lock/x' }, 'workingBranch'],
    [{ baseBranch: 'HEAD' }, 'baseBranch'],
    // a full ref git accepts but that cannot be a sandbox's branch (@ars/git-refs)
    [{ workingBranch: 'refs/heads/x' }, 'workingBranch'],
    [{ rootDirectory: '../x' }, 'rootDirectory'],
    [{ rootDirectory: '/abs' }, 'rootDirectory'],
    [{ resources: { requests: { cpu: 'lots' }, limits: {} } }, 'resources.requests.cpu'],
    [{ resources: { requests: { memory: '4Gi' }, limits: { memory: '1Gi' } } }, 'resources.requests.memory'],
    [{ labels: { team: 'not valid!' } }, 'labels.team'],
  ] as Array<[Partial<SandboxPodInput>, string]>)('%j is refused naming %s', (overrides, field) => {
    expect(problem(overrides).field).toBe(field);
  });
});

describe('quantities are read like Kubernetes reads them', () => {
  it('knows decimal and binary suffixes and millis', () => {
    expect(quantityValue('500m')).toBeCloseTo(0.5);
    expect(quantityValue('1Gi')).toBe(2 ** 30);
    expect(quantityValue('1G')).toBe(1e9);
    expect(quantityValue('1e3')).toBe(1000);
    expect(quantityValue('abc')).toBeNull();
  });
});
