// tools/chart-render does what `helm template` does for what the chart uses: a small chart of its
// own exercises each rule (helm/helm pkg/engine and pkg/chartutil behaviour).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergedValues, render, renderNotes, type RenderResult } from './render.js';

let chartDir = '';

beforeAll(() => {
  chartDir = mkdtempSync(join(tmpdir(), 'ars-render-chart-'));
  mkdirSync(join(chartDir, 'templates'));
  const files: Record<string, string> = {
    'Chart.yaml': 'apiVersion: v2\nname: probe\nversion: 1.2.3\nappVersion: "4.5.6"\n',
    'values.yaml': 'nested: {keep: 1, drop: 2, deep: {a: x}}\nlist: [a, b]\nname: base\nboom: false\n',
    'templates/_helpers.tpl': '{{- define "probe.name" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end -}}\n',
    'templates/a.yaml': [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: {{ include "probe.name" . }}',
      '  namespace: {{ .Release.Namespace }}',
      'data:',
      '  chart: {{ printf "%s %s %s" .Chart.Name .Chart.Version .Chart.AppVersion | quote }}',
      '  service: {{ .Release.Service | quote }}',
      '  tpl: {{ tpl "{{ .Values.name }}-{{ .Release.Name }}" . | quote }}',
      '  missing: "{{ .Values.absent }}"',
      '  lookup: {{ lookup "v1" "Secret" "ns" "s" | toJson | quote }}',
      '  capabilities: {{ .Capabilities.APIVersions.Has "policy/v1" | quote }}',
      '  nested: {{ toJson .Values.nested | quote }}',
      '  yaml: |',
      '    {{- toYaml .Values.list | nindent 4 }}',
      '  fromYaml: {{ (fromYaml "k: v").k | quote }}',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: second}',
      '---',
      '',
    ].join('\n'),
    'templates/b.yaml': '{{- if .Values.boom }}{{ fail "boom is set" }}{{- end }}\n{{- $x := required "name is required" .Values.name }}\n',
    'templates/notes.txt.example': 'not a template output',
    'templates/NOTES.txt': 'installed {{ .Release.Name }}\n',
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(join(chartDir, file), text);
});
afterAll(() => rmSync(chartDir, { recursive: true, force: true }));

const docs = (result: RenderResult) => (result.ok ? result.documents : []);

describe('the renderer outputs what helm template outputs', () => {
  it('each document under its # Source, empty ones dropped, partials and non-YAML files not output', () => {
    const result = render({ chartDir, release: { name: 'r1', namespace: 'ns1' } });
    expect(docs(result).map((d) => [d.template, d.manifest.metadata.name])).toEqual([
      ['templates/a.yaml', 'probe-r1'],
      ['templates/a.yaml', 'second'],
    ]);
  });

  it('.Chart, .Release, include, tpl, lookup (empty without a cluster), .Capabilities, toJson, toYaml, fromYaml; a missing value is empty', () => {
    const [first] = docs(render({ chartDir, release: { name: 'r1', namespace: 'ns1' } }));
    expect(first?.manifest.metadata.namespace).toBe('ns1');
    expect(first?.manifest.data).toEqual({
      chart: 'probe 1.2.3 4.5.6',
      service: 'Helm',
      tpl: 'base-r1',
      missing: '',
      lookup: '{}',
      capabilities: 'true',
      nested: '{"deep":{"a":"x"},"drop":2,"keep":1}',
      yaml: '- a\n- b\n',
      fromYaml: 'v',
    });
  });

  it('NOTES.txt only on asking', () => {
    expect(renderNotes({ chartDir, release: { name: 'r2' } })).toBe('installed r2\n');
  });
});

describe('values merge as Helm merges them', () => {
  it('maps merge key by key, lists and scalars replace, null deletes a key', () => {
    const values = mergedValues({ chartDir, values: { nested: { drop: null, deep: { b: 'y' } }, list: ['c'] } });
    expect(values.nested).toEqual({ keep: 1, deep: { a: 'x', b: 'y' } });
    expect(values.list).toEqual(['c']);
  });
});

describe('fail and required stop the render with Helm’s message', () => {
  it('fail', () => {
    expect(render({ chartDir, values: { boom: true } })).toEqual({ ok: false, error: 'execution error at (probe/templates/b.yaml:1:25): boom is set' });
  });

  it('required', () => {
    expect(render({ chartDir, values: { name: null } })).toEqual({ ok: false, error: 'execution error at (probe/templates/b.yaml:2:10): name is required' });
  });

  it('env and expandenv are not there (Helm removes them)', () => {
    writeFileSync(join(chartDir, 'templates/c.yaml'), '{{ env "HOME" }}\n');
    try {
      const result = render({ chartDir });
      expect(result).toEqual({ ok: false, error: expect.stringContaining('function "env" not defined') });
    } finally {
      rmSync(join(chartDir, 'templates/c.yaml'));
    }
  });
});
