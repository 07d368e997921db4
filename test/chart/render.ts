// Renders a chart with tools/chart-render (a Helm-compatible renderer built from Debian packages),
// building it first when missing or stale (tools/chart-render/build.sh), so a fresh clone works.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = new URL('../../', import.meta.url).pathname;
export const CHART_DIR = join(REPO_ROOT, 'charts/agent-run-service');
export const PROFILES = ['dev', 'production', 'minimal'] as const;
export type Profile = (typeof PROFILES)[number];
export const profileFile = (profile: Profile): string => join(CHART_DIR, 'ci', `${profile}-values.yaml`);

const RENDERER = join(REPO_ROOT, 'deploy/local/.tools/chart-render');
let built = false;

function renderer(): string {
  if (!built) {
    const build = spawnSync('bash', [join(REPO_ROOT, 'tools/chart-render/build.sh')], { encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`tools/chart-render/build.sh failed: ${build.stderr}`);
    built = true;
  }
  return RENDERER;
}

/** A rendered Kubernetes object. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** One document of the output, under its `# Source:` (e.g. `templates/deployment.yaml`). */
export interface RenderedDocument {
  template: string;
  manifest: Manifest;
}

export interface RenderOptions {
  chartDir?: string;
  valuesFiles?: readonly string[];
  /** Values laid over the files (written to a temporary values file). */
  values?: Record<string, unknown>;
  release?: { name?: string; namespace?: string };
}

export type RenderResult = { ok: true; documents: RenderedDocument[] } | { ok: false; error: string };

function run(extraArgs: string[], options: RenderOptions): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ars-chart-'));
  try {
    const args = ['--name', options.release?.name ?? 'ars', '--namespace', options.release?.namespace ?? 'ars', ...extraArgs];
    for (const file of options.valuesFiles ?? []) args.push('-f', file);
    if (options.values) {
      const file = join(dir, 'values.json');
      writeFileSync(file, JSON.stringify(options.values));
      args.push('-f', file);
    }
    args.push(options.chartDir ?? CHART_DIR);
    const result = spawnSync(renderer(), args, { encoding: 'utf8' });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `helm template`: every document with the template it came from, or the renderer's error (`fail`, `required`). */
export function render(options: RenderOptions = {}): RenderResult {
  const result = run([], options);
  if (result.status !== 0) return { ok: false, error: result.stderr.trim().replace(/^Error: /, '') };
  const documents: RenderedDocument[] = [];
  for (const chunk of result.stdout.split(/^---\n/m)) {
    const source = /^# Source: [^/]+\/(.+)$/m.exec(chunk)?.[1];
    if (!source) continue;
    for (const doc of parseAllDocuments(chunk)) {
      if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0]?.message}`);
      const manifest = doc.toJS() as Manifest | null;
      if (manifest) documents.push({ template: source, manifest });
    }
  }
  return { ok: true, documents };
}

/** Renders, or throws naming the error: for values that must render. */
export function renderOrThrow(options: RenderOptions = {}): RenderedDocument[] {
  const result = render(options);
  if (!result.ok) throw new Error(result.error);
  return result.documents;
}

/** The rendered NOTES.txt. */
export function renderNotes(options: RenderOptions = {}): string {
  const result = run(['--notes'], options);
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout;
}

/** The values the templates see (values.yaml and the files, merged as Helm merges them): what values.schema.json validates. */
export function mergedValues(options: RenderOptions = {}): Record<string, unknown> {
  const result = run(['--show-values'], options);
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** A profile's manifests. */
export const renderProfile = (profile: Profile): RenderedDocument[] => renderOrThrow({ valuesFiles: [profileFile(profile)] });

export const ofKind = <T = Manifest>(documents: readonly RenderedDocument[], kind: string): T[] =>
  documents.filter((d) => d.manifest.kind === kind).map((d) => d.manifest as unknown as T);
