// The provider's manifests against the stand-in's validation, which is written from the Kubernetes
// API documentation and shares no code with podManifest.ts / networkPolicy.ts (an independent oracle).
import { describe, expect, it } from '@jest/globals';
import { validateNetworkPolicy, validatePod, validateSecret } from '@ars/kubernetes-stand-in';
import { sandboxNetworkPolicy } from './networkPolicy.js';
import { manifests } from './testing.js';

/** The manifests as the API server receives them: JSON. */
const wire = (object: unknown): unknown => JSON.parse(JSON.stringify(object));

describe("the provider's Pod and Secret are valid by the API server's rules", () => {
  it.each([
    ['the defaults', {}],
    [
      'every option set',
      {
        rootDirectory: 'packages/web',
        labels: { 'team.example.com/owner': 'platform', tier: 'sandbox' },
        serviceAccount: 'ars-sandboxes',
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        activeDeadlineSeconds: 86_400,
        imagePullSecrets: ['registry'],
        resources: { requests: { cpu: '500m', memory: '512Mi', 'ephemeral-storage': '1Gi' }, limits: { cpu: '2', memory: '2Gi', 'ephemeral-storage': '10Gi' } },
      },
    ],
  ])('%s', (_what, overrides) => {
    const made = manifests({ cloneUrl: 'https://x-access-token:secret@example.com/acme/app.git', ...overrides });
    expect(validatePod(wire(made.pod)).causes).toEqual([]);
    expect(validateSecret(wire(made.secret)).causes).toEqual([]);
  });
});

describe("the provider's NetworkPolicy is valid by the API server's rules", () => {
  it('with the defaults, and with a preview source, a destination reached directly and DNS', () => {
    expect(validateNetworkPolicy(wire(sandboxNetworkPolicy({ namespace: 'ars-sandboxes' }))).causes).toEqual([]);
    const narrowed = sandboxNetworkPolicy({
      namespace: 'ars-sandboxes',
      previewFrom: [{ podSelector: { matchLabels: { app: 'sandboxes' } } }],
      allowEgressTo: [{ ipBlock: { cidr: '10.20.0.0/16' } }],
      dns: true,
    });
    expect(validateNetworkPolicy(wire(narrowed)).causes).toEqual([]);
  });
});
