// Strict validation of rendered manifests without a cluster: kubernetes-models' validate() (types,
// required fields, formats) and, for unknown fields, which validate() lets through, TypeScript's
// excess-property check: each manifest is emitted as a typed object literal
// (`export const d0: IDeployment = {…}`) and `tsc --noEmit` compiles it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, type Manifest } from './render.js';

/** `v1` → `kubernetes-models/v1`, `apps/v1` → `kubernetes-models/apps/v1`: where a kind's model is. */
const modelModule = (apiVersion: string): string => `kubernetes-models/${apiVersion}`;

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

/** The problems validate() finds in each manifest (`Deployment/x: …`); empty when all are valid. */
export async function modelProblems(manifests: readonly Manifest[]): Promise<string[]> {
  const problems: string[] = [];
  for (const manifest of manifests) {
    const label = `${manifest.kind}/${manifest.metadata?.name}`;
    let model: ModelClass | undefined;
    try {
      const module = (await import(modelModule(manifest.apiVersion))) as Record<string, ModelClass | undefined>;
      model = module[manifest.kind];
    } catch {
      model = undefined;
    }
    if (!model) {
      problems.push(`${label}: no model for ${manifest.apiVersion} ${manifest.kind}`);
      continue;
    }
    try {
      new model(manifest).validate();
    } catch (error) {
      problems.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

/**
 * The TypeScript errors of the manifests as typed literals, each prefixed with the manifest it is in
 * (`Deployment/x: error TS2353: Object literal may only specify known properties, and 'bogusField'
 * does not exist in type 'IContainer'.`); empty when every field is known.
 */
export function unknownFieldProblems(manifests: readonly Manifest[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'ars-manifests-'));
  try {
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', skipLibCheck: true, types: [] },
        files: ['manifests.ts'],
      }),
    );
    const lines: string[] = [];
    const owners: { from: number; label: string }[] = [];
    manifests.forEach((manifest, index) => {
      const alias = `M${index}`;
      lines.push(`import type { I${manifest.kind} as ${alias} } from '${modelModule(manifest.apiVersion)}';`);
    });
    manifests.forEach((manifest, index) => {
      owners.push({ from: lines.length + 1, label: `${manifest.kind}/${manifest.metadata?.name}` });
      lines.push(...`export const d${index}: M${index} = ${JSON.stringify(manifest, null, 2)};`.split('\n'));
    });
    writeFileSync(join(dir, 'manifests.ts'), lines.join('\n') + '\n');
    const tsc = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    if (tsc.status === 0) return [];
    return tsc.stdout
      .split('\n')
      .filter((line) => line.includes('error TS'))
      .map((line) => {
        const at = Number(/manifests\.ts\((\d+),/.exec(line)?.[1] ?? 0);
        const owner = [...owners].reverse().find((o) => o.from <= at);
        return `${owner?.label ?? 'imports'}: ${line.replace(/^.*?error /, 'error ')}`;
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
