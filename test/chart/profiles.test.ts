// The chart's value profiles (ci/dev, ci/production, ci/minimal): rendered, their values valid by
// the schema, every manifest valid and free of unknown fields, and the chart's policies kept.
import { describe, expect, it } from '@jest/globals';
import { modelProblems, unknownFieldProblems } from './manifests.js';
import { ALL_POLICIES, valuesSchemaProblems } from './policy.js';
import { mergedValues, profileFile, PROFILES, renderNotes, renderProfile, type Manifest } from './render.js';

const manifestsOf = (profile: (typeof PROFILES)[number]): Manifest[] => renderProfile(profile).map((d) => d.manifest);

describe('each value profile renders', () => {
  it.each(PROFILES)('%s: renders a Deployment, Service and NetworkPolicy per service, and NOTES.txt', (profile) => {
    const manifests = manifestsOf(profile);
    const count = (kind: string) => manifests.filter((m) => m.kind === kind).length;
    expect(count('Deployment')).toBe(7);
    expect(count('Service')).toBe(7);
    expect(count('ServiceAccount')).toBe(7);
    // Seven services, the topic Job's, and the sandbox namespace's.
    expect(count('NetworkPolicy')).toBe(9);
    expect(renderNotes({ valuesFiles: [profileFile(profile)] })).toContain('gateway: http://ars-agent-run-service-gateway:8080');
  });
});

describe("each profile's values are valid by values.schema.json (additionalProperties false at every level)", () => {
  it.each(PROFILES)('%s', (profile) => {
    expect(valuesSchemaProblems(mergedValues({ valuesFiles: [profileFile(profile)] }))).toEqual([]);
  });
});

describe("every rendered manifest is valid by kubernetes-models' validate()", () => {
  it.each(PROFILES)('%s', async (profile) => {
    expect(await modelProblems(manifestsOf(profile))).toEqual([]);
  });
});

describe('no rendered manifest has a field its kind does not define (tsc excess-property check)', () => {
  it('every profile', () => {
    expect(unknownFieldProblems(PROFILES.flatMap(manifestsOf))).toEqual([]);
  });
});

describe('the policies: no latest tag, resources set, non-root and read-only, probes on /healthz and /readyz, PDBs below the replicas', () => {
  it.each(PROFILES)('%s', (profile) => {
    const manifests = manifestsOf(profile);
    for (const [policy, check] of Object.entries(ALL_POLICIES)) expect({ policy, problems: check(manifests) }).toEqual({ policy, problems: [] });
  });

  it('production runs several replicas of every service, each with a PDB; a single replica gets none', () => {
    const production = manifestsOf('production');
    expect(production.filter((m) => m.kind === 'PodDisruptionBudget')).toHaveLength(7);
    expect(manifestsOf('dev').filter((m) => m.kind === 'PodDisruptionBudget')).toHaveLength(0);
  });
});
