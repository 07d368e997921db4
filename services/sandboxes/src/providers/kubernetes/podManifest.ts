// The Secret and the Pod of one Kubernetes sandbox (pure: no I/O). The init container clones the
// repository into the shared `/workspace` volume and prepares the branches; the main container
// idles so harness sessions are `exec`ed into it. The clone URL (it may carry a token) lives only
// in the Secret and reaches only the init container, as an environment variable.
import type { V1Container, V1Pod, V1Secret, V1SecurityContext } from '@kubernetes/client-node';
import { branchNameProblem, relativePathProblem } from '@ars/git-refs';

export const MANAGED_BY = 'agent-run-service';
export const SANDBOX_ID_LABEL = 'agent-run-service.dev/sandbox-id';
/** The shared volume's mount path in both containers: the working tree is `/workspace/repo`. */
export const WORKSPACE = '/workspace';
export const REPO_DIR = `${WORKSPACE}/repo`;
/** HOME of harness sessions (writable: the root file system is read-only). */
export const HOME_DIR = `${WORKSPACE}/home`;
export const INIT_CONTAINER = 'clone';
export const MAIN_CONTAINER = 'sandbox';
export const CLONE_URL_KEY = 'clone-url';
export const CLONE_PROXY_KEY = 'clone-proxy';
/** The uid/gid both containers run as (the image needs no user of that id; files are shared through fsGroup). */
export const SANDBOX_UID = 1000;

export interface ResourceList {
  cpu?: string;
  memory?: string;
  'ephemeral-storage'?: string;
}

export interface SandboxResources {
  requests: ResourceList;
  limits: ResourceList;
}

export interface SandboxPodInput {
  /** The provider's id of the sandbox; also the Pod's name (a DNS label: lower case, digits, '-', ≤ 63). */
  sandboxId: string;
  namespace: string;
  /** The image of the main container (the harness CLIs, node, git, sh, env, base64, kill). */
  image: string;
  /** The image of the init container (git and a POSIX sh; its entrypoint is replaced). */
  gitImage: string;
  resources: SandboxResources;
  /** The clone URL as the catalog answered it (may carry a token): written to the Secret only. */
  cloneUrl: string;
  baseBranch: string;
  workingBranch: string;
  /** True: a working branch missing on the remote is created from the base; false: it must exist. */
  createBranch: boolean;
  /** Where sessions run, relative to the repository (null, '' or '.' for its root). */
  rootDirectory: string | null;
  /** Extra labels (the managed-by and sandbox-id labels always win). */
  labels?: Record<string, string>;
  serviceAccount?: string;
  nodeSelector?: Record<string, string>;
  /** Kubernetes stops the Pod after this many seconds (a backstop to the service's own idle stop). */
  activeDeadlineSeconds?: number;
  imagePullSecrets?: string[];
  /**
   * The clone's way out: the egress proxy URL of a grant for the clone URL's host alone (it holds the
   * grant's credential: written to the Secret only), and the hosts reached directly (NO_PROXY).
   */
  cloneProxy?: { url: string; noProxy: string };
}

export interface SandboxManifests {
  secret: V1Secret;
  pod: V1Pod;
  /** The main container's working directory (`/workspace/repo[/rootDirectory]`). */
  workingDir: string;
}

/** A manifest input a real API server (or git) would refuse, said before anything is sent. */
export class ManifestError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field} ${message}`);
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

export function isDnsLabel(value: string): boolean {
  return value.length <= 63 && DNS_LABEL.test(value);
}

export function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 && DNS_SUBDOMAIN.test(value);
}

export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** A label key: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63. */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== null && !isDnsSubdomain(prefix)) return false;
  return name.length <= 63 && LABEL_NAME.test(name);
}

export function isQuantity(value: string): boolean {
  return QUANTITY.test(value);
}

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The value of a Kubernetes quantity as a number (approximate for huge values; null when invalid). */
export function quantityValue(value: string): number | null {
  const match = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/.exec(value);
  if (!match) return null;
  const base = Number(match[1]);
  const suffix = match[2] ?? '';
  if (/^[eE]/.test(suffix)) return base * 10 ** Number(suffix.slice(1));
  const factor = SUFFIX[suffix];
  return factor === undefined ? null : base * factor;
}

function normalizedRootDirectory(rootDirectory: string | null): string | null {
  if (rootDirectory === null) return null;
  const trimmed = rootDirectory.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return null;
  const problem = relativePathProblem(trimmed);
  if (problem) throw new ManifestError('rootDirectory', problem);
  const parts = trimmed.split('/').filter((part) => part !== '.');
  return parts.length === 0 ? null : parts.join('/');
}

function checkResources(resources: SandboxResources): void {
  for (const kind of ['requests', 'limits'] as const) {
    for (const [name, value] of Object.entries(resources[kind])) {
      if (typeof value !== 'string' || !isQuantity(value)) {
        throw new ManifestError(`resources.${kind}.${name}`, `"${String(value)}" is not a Kubernetes quantity (e.g. 500m, 2, 1Gi)`);
      }
    }
  }
  for (const [name, request] of Object.entries(resources.requests)) {
    const limit = (resources.limits as Record<string, string | undefined>)[name];
    if (limit === undefined || typeof request !== 'string') continue;
    const r = quantityValue(request);
    const l = quantityValue(limit);
    if (r !== null && l !== null && r > l) throw new ManifestError(`resources.requests.${name}`, `must be less than or equal to the ${name} limit (${limit})`);
  }
}

function checkLabels(field: string, labels: Record<string, string> | undefined): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (!isLabelKey(key)) throw new ManifestError(`${field}`, `key "${key}" is not a valid label key`);
    if (typeof value !== 'string' || !isLabelValue(value)) throw new ManifestError(`${field}.${key}`, `"${String(value)}" is not a valid label value`);
  }
}

/** The init container's script: the URL comes from $CLONE_URL (the Secret), never from the command line. */
export const CLONE_SCRIPT = `set -u
redact() { sed -E 's#(://)[^/@[:space:]]+@#\\1***@#g'; }
fail() { printf 'ars-init: %s\\n' "$1" >&2; exit 1; }
repo=${REPO_DIR}
if ! out=$(git clone --quiet --no-checkout -- "$CLONE_URL" "$repo" 2>&1); then
  fail "the repository could not be cloned: $(printf '%s' "$out" | redact | tail -n 3 | tr '\\n' ' ')"
fi
cd "$repo" || fail "the working tree is missing"
git remote set-url origin "$(printf '%s' "$CLONE_URL" | sed -E 's#(://)[^/@]+@#\\1#')" || fail "the remote could not be set"
if ! git rev-parse --verify --quiet "refs/remotes/origin/$BASE_BRANCH^{commit}" >/dev/null; then
  fail "the base branch \\"$BASE_BRANCH\\" does not exist in the repository"
fi
git checkout --quiet -B "$BASE_BRANCH" "refs/remotes/origin/$BASE_BRANCH" || fail "the base branch could not be checked out"
if [ "$WORKING_BRANCH" != "$BASE_BRANCH" ]; then
  if git rev-parse --verify --quiet "refs/remotes/origin/$WORKING_BRANCH^{commit}" >/dev/null; then
    git checkout --quiet -B "$WORKING_BRANCH" "refs/remotes/origin/$WORKING_BRANCH" || fail "the working branch could not be checked out"
  elif [ "$CREATE_BRANCH" = true ]; then
    git checkout --quiet -b "$WORKING_BRANCH" || fail "the working branch could not be created"
  else
    fail "the working branch \\"$WORKING_BRANCH\\" does not exist in the repository and createBranch is false"
  fi
fi
if [ -n "$ROOT_DIRECTORY" ] && [ ! -d "$repo/$ROOT_DIRECTORY" ]; then
  fail "the root directory \\"$ROOT_DIRECTORY\\" does not exist in the repository on branch \\"$WORKING_BRANCH\\""
fi
mkdir -p ${HOME_DIR} || fail "the home directory could not be made"
printf '[user]\\n\\tname = Agent Run Service\\n\\temail = agent@ars.local\\n' > ${HOME_DIR}/.gitconfig
echo "ars-init: $(git rev-parse HEAD) on $WORKING_BRANCH"
`;

/** The main container's command: idles, and ends at once on SIGTERM (a bare `sleep` as PID 1 would not). */
export const IDLE_COMMAND = ['/bin/sh', '-c', 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done'];

function containerSecurity(): V1SecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: SANDBOX_UID,
    runAsGroup: SANDBOX_UID,
    allowPrivilegeEscalation: false,
    privileged: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function secretName(sandboxId: string): string {
  return `${sandboxId}-clone`;
}

/** The Secret and the Pod of a sandbox; throws ManifestError for input a server would refuse. */
export function buildSandboxManifests(input: SandboxPodInput): SandboxManifests {
  if (!isDnsLabel(input.sandboxId) || input.sandboxId.length > 57) {
    throw new ManifestError('sandboxId', 'must be a DNS label of at most 57 characters (lower case letters, digits, "-")');
  }
  if (!isDnsLabel(input.namespace)) throw new ManifestError('namespace', 'must be a DNS label');
  if (!input.image.trim()) throw new ManifestError('image', 'is required');
  if (!input.gitImage.trim()) throw new ManifestError('gitImage', 'is required');
  if (!input.cloneUrl) throw new ManifestError('cloneUrl', 'is required');
  for (const [field, branch] of [
    ['baseBranch', input.baseBranch],
    ['workingBranch', input.workingBranch],
  ] as const) {
    const problem = branchNameProblem(branch);
    if (problem) throw new ManifestError(field, problem);
  }
  const rootDirectory = normalizedRootDirectory(input.rootDirectory);
  checkResources(input.resources);
  checkLabels('labels', input.labels);
  checkLabels('nodeSelector', input.nodeSelector);
  if (input.serviceAccount !== undefined && !isDnsSubdomain(input.serviceAccount)) throw new ManifestError('serviceAccount', 'must be a DNS subdomain');
  if (input.activeDeadlineSeconds !== undefined && (!Number.isInteger(input.activeDeadlineSeconds) || input.activeDeadlineSeconds < 1)) {
    throw new ManifestError('activeDeadlineSeconds', 'must be a positive integer');
  }

  const labels: Record<string, string> = {
    ...input.labels,
    'app.kubernetes.io/name': 'ars-sandbox',
    'app.kubernetes.io/managed-by': MANAGED_BY,
    [SANDBOX_ID_LABEL]: input.sandboxId,
  };
  const secret: V1Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretName(input.sandboxId), namespace: input.namespace, labels },
    type: 'Opaque',
    immutable: true,
    data: {
      [CLONE_URL_KEY]: Buffer.from(input.cloneUrl, 'utf8').toString('base64'),
      ...(input.cloneProxy ? { [CLONE_PROXY_KEY]: Buffer.from(input.cloneProxy.url, 'utf8').toString('base64') } : {}),
    },
  };
  const workingDir = rootDirectory === null ? REPO_DIR : `${REPO_DIR}/${rootDirectory}`;
  const resources = { requests: { ...input.resources.requests }, limits: { ...input.resources.limits } };
  const mounts = [
    { name: 'workspace', mountPath: WORKSPACE },
    { name: 'tmp', mountPath: '/tmp' },
  ];
  const init: V1Container = {
    name: INIT_CONTAINER,
    image: input.gitImage,
    command: ['/bin/sh', '-c', CLONE_SCRIPT],
    env: [
      { name: 'CLONE_URL', valueFrom: { secretKeyRef: { name: secretName(input.sandboxId), key: CLONE_URL_KEY } } },
      { name: 'BASE_BRANCH', value: input.baseBranch },
      { name: 'WORKING_BRANCH', value: input.workingBranch },
      { name: 'CREATE_BRANCH', value: input.createBranch ? 'true' : 'false' },
      { name: 'ROOT_DIRECTORY', value: rootDirectory ?? '' },
      { name: 'HOME', value: '/tmp' },
      { name: 'GIT_TERMINAL_PROMPT', value: '0' },
      { name: 'GIT_CONFIG_NOSYSTEM', value: '1' },
      // git (libcurl) reads the lower-case names, other tools the upper-case ones.
      ...(input.cloneProxy
        ? [
            ...['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].map((name) => ({
              name,
              valueFrom: { secretKeyRef: { name: secretName(input.sandboxId), key: CLONE_PROXY_KEY } },
            })),
            { name: 'NO_PROXY', value: input.cloneProxy.noProxy },
            { name: 'no_proxy', value: input.cloneProxy.noProxy },
          ]
        : []),
    ],
    resources,
    securityContext: containerSecurity(),
    volumeMounts: mounts,
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
  const main: V1Container = {
    name: MAIN_CONTAINER,
    image: input.image,
    command: IDLE_COMMAND,
    workingDir,
    env: [
      { name: 'HOME', value: HOME_DIR },
      { name: 'ARS_SANDBOX_ID', value: input.sandboxId },
    ],
    resources,
    securityContext: containerSecurity(),
    volumeMounts: mounts,
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
  const pod: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: input.sandboxId, namespace: input.namespace, labels },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 10,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: SANDBOX_UID,
        runAsGroup: SANDBOX_UID,
        fsGroup: SANDBOX_UID,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      initContainers: [init],
      containers: [main],
      volumes: [
        { name: 'workspace', emptyDir: {} },
        { name: 'tmp', emptyDir: {} },
      ],
      ...(input.serviceAccount !== undefined ? { serviceAccountName: input.serviceAccount } : {}),
      ...(input.nodeSelector !== undefined ? { nodeSelector: { ...input.nodeSelector } } : {}),
      ...(input.activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds: input.activeDeadlineSeconds } : {}),
      ...(input.imagePullSecrets !== undefined ? { imagePullSecrets: input.imagePullSecrets.map((name) => ({ name })) } : {}),
    },
  };
  return { secret, pod, workingDir };
}
