// A runner for test suites in helm-unittest's YAML format (charts/<chart>/tests/*_test.yaml), a
// subset of it, so the suites run here through tools/chart-render and unchanged under real
// `helm unittest` where Helm exists. Supported: suite, templates, release {name, namespace}, values,
// set (dotted paths), tests[{it, set, values, release, template, documentIndex, documentSelector
// {path, value, matchMany}, asserts}]; assertions equal, notEqual, exists, notExists, isKind, hasDocuments,
// contains, notContains, isSubset, matchRegex, notMatchRegex, failedTemplate {errorMessage |
// errorPattern}, each with `not`, `template`, `documentIndex`, `documentSelector`. Anything else is
// reported as unsupported. One difference, stricter: the whole chart is rendered (helm-unittest
// renders only the suite's templates and the partials), so every suite's values must pass validate.yaml.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { valuesSchemaProblems } from './policy.js';
import { mergedValues, render, type RenderedDocument } from './render.js';

type Values = Record<string, unknown>;

export interface SuiteTest {
  it: string;
  set?: Values;
  values?: string[];
  release?: { name?: string; namespace?: string };
  template?: string;
  documentIndex?: number;
  documentSelector?: { path: string; value: unknown; matchMany?: boolean };
  asserts: Record<string, unknown>[];
}

export interface Suite {
  suite: string;
  templates: string[];
  release?: { name?: string; namespace?: string };
  values?: string[];
  set?: Values;
  tests: SuiteTest[];
}

export function readSuite(file: string): Suite {
  return parse(readFileSync(file, 'utf8')) as Suite;
}

/** `a.b[0]["c.d"]` → ['a', 'b', 0, 'c.d'] (helm-unittest's path syntax). */
export function parsePath(path: string): (string | number)[] {
  const parts: (string | number)[] = [];
  const token = /([^.[\]]+)|\[(\d+)\]|\[["']([^"']+)["']\]/g;
  let match: RegExpExecArray | null;
  while ((match = token.exec(path)) !== null) {
    if (match[1] !== undefined) parts.push(match[1]);
    else if (match[2] !== undefined) parts.push(Number(match[2]));
    else if (match[3] !== undefined) parts.push(match[3]);
  }
  return parts;
}

function lookup(object: unknown, path: string): { found: boolean; value: unknown } {
  let current: unknown = object;
  for (const part of parsePath(path)) {
    if (current === null || typeof current !== 'object' || !(part in (current as Record<string | number, unknown>))) return { found: false, value: undefined };
    current = (current as Record<string | number, unknown>)[part];
  }
  return { found: true, value: current };
}

/** `set` as helm-unittest takes it: dotted paths (`services.gateway.replicaCount: 3`) → nested values. */
function nestSet(set: Values | undefined): Values {
  const values: Values = {};
  for (const [path, value] of Object.entries(set ?? {})) {
    const parts = parsePath(path).map(String);
    let node = values;
    parts.slice(0, -1).forEach((part) => {
      node[part] = typeof node[part] === 'object' && node[part] !== null ? node[part] : {};
      node = node[part] as Values;
    });
    node[parts[parts.length - 1] as string] = value;
  }
  return values;
}

function deepMerge(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b) ? deepMerge(b as Values, v as Values) : v;
  }
  return out;
}

/** Whether every key of `subset` is in `object` with an equal value (recursively for objects). */
function isSubset(object: unknown, subset: unknown): boolean {
  if (subset === null || typeof subset !== 'object' || Array.isArray(subset)) return isDeepStrictEqual(object, subset);
  if (object === null || typeof object !== 'object') return false;
  return Object.entries(subset).every(([k, v]) => isSubset((object as Values)[k], v));
}

/** The message of a `fail`/`required` without Helm's "execution error at (file:line:col): " prefix. */
const failMessage = (error: string): string => error.replace(/^execution error at \([^)]*\): /, '');

/** A Go (RE2) pattern as a RegExp: leading inline flags such as `(?m)` become flags. */
function goRegExp(pattern: string): RegExp {
  const flags = /^\(\?([ims]+)\)/.exec(pattern);
  return flags ? new RegExp(pattern.slice(flags[0].length), flags[1]) : new RegExp(pattern);
}

type Check = (docs: RenderedDocument[], args: Values) => string | undefined;

/** Each assertion over its documents: a problem, or undefined when it holds. */
const ASSERTIONS: Record<string, Check> = {
  hasDocuments: (docs, a) => (docs.length === a.count ? undefined : `expected ${String(a.count)} documents, got ${docs.length}`),
  isKind: (docs, a) => docs.map((d) => (d.manifest.kind === a.of ? undefined : `kind ${d.manifest.kind}, expected ${String(a.of)}`)).find(Boolean),
  equal: (docs, a) =>
    docs
      .map((d) => {
        const { value } = lookup(d.manifest, String(a.path));
        return isDeepStrictEqual(value, a.value) ? undefined : `${String(a.path)} is ${JSON.stringify(value)}, expected ${JSON.stringify(a.value)}`;
      })
      .find(Boolean),
  exists: (docs, a) => docs.map((d) => (lookup(d.manifest, String(a.path)).found ? undefined : `${String(a.path)} does not exist`)).find(Boolean),
  contains: (docs, a) =>
    docs
      .map((d) => {
        const { value } = lookup(d.manifest, String(a.path));
        if (!Array.isArray(value)) return `${String(a.path)} is not a list`;
        const matches = value.filter((item) => isDeepStrictEqual(item, a.content)).length;
        if (a.count !== undefined ? matches !== a.count : matches === 0)
          return `${String(a.path)} does not contain ${JSON.stringify(a.content)}${a.count !== undefined ? ` ${String(a.count)} times` : ''}`;
        return undefined;
      })
      .find(Boolean),
  isSubset: (docs, a) =>
    docs
      .map((d) => (isSubset(lookup(d.manifest, String(a.path)).value, a.content) ? undefined : `${String(a.path)} does not hold ${JSON.stringify(a.content)}`))
      .find(Boolean),
  matchRegex: (docs, a) =>
    docs
      .map((d) => {
        const { value } = lookup(d.manifest, String(a.path));
        return typeof value === 'string' && goRegExp(String(a.pattern)).test(value)
          ? undefined
          : `${String(a.path)} (${JSON.stringify(value)}) does not match ${String(a.pattern)}`;
      })
      .find(Boolean),
};
const NEGATIONS: Record<string, string> = { notEqual: 'equal', notExists: 'exists', notContains: 'contains', notMatchRegex: 'matchRegex' };

/** Runs one test of a suite: the problems of its failing assertions (empty: it passes). */
export function runTest(suiteFile: string, suite: Suite, test: SuiteTest): string[] {
  const base = dirname(suiteFile);
  const chartDir = dirname(base);
  const options = {
    chartDir,
    valuesFiles: [...(suite.values ?? []), ...(test.values ?? [])].map((f) => join(base, f)),
    values: deepMerge(nestSet(suite.set), nestSet(test.set)),
    release: { ...suite.release, ...test.release },
  };
  // helm-unittest validates the values against values.schema.json first: a violation errors the test.
  const schemaProblems = valuesSchemaProblems(mergedValues(options), chartDir);
  if (schemaProblems.length > 0) return schemaProblems.map((p) => `values.schema.json: ${p}`);
  const result = render(options);
  const problems: string[] = [];
  for (const assertion of test.asserts) {
    const negate = assertion.not === true;
    const entries = Object.entries(assertion).filter(([k]) => !['not', 'template', 'documentIndex', 'documentSelector'].includes(k));
    const [name, rawArgs] = entries[0] ?? ['(none)', {}];
    const args = (rawArgs ?? {}) as Values;
    if (name === 'failedTemplate') {
      let problem: string | undefined;
      if (result.ok) problem = 'the templates rendered';
      else if (args.errorMessage !== undefined && failMessage(result.error) !== args.errorMessage)
        problem = `the error is ${JSON.stringify(failMessage(result.error))}`;
      else if (args.errorPattern !== undefined && !goRegExp(String(args.errorPattern)).test(failMessage(result.error)))
        problem = `the error ${JSON.stringify(failMessage(result.error))} does not match`;
      if (Boolean(problem) !== negate) problems.push(`failedTemplate${negate ? ' (not)' : ''}: ${problem ?? 'it failed'}`);
      continue;
    }
    if (!result.ok) {
      problems.push(`${name}: the templates failed to render: ${result.error}`);
      continue;
    }
    const positive = NEGATIONS[name] ?? name;
    const check = ASSERTIONS[positive];
    if (!check) {
      problems.push(`${name}: unsupported by this runner`);
      continue;
    }
    const named = (assertion.template as string | undefined) ?? test.template;
    const templates = (named !== undefined ? [named] : suite.templates).map((t) => (t.startsWith('templates/') ? t : `templates/${t}`));
    let docs = result.documents.filter((d) => templates.includes(d.template));
    // As in helm-unittest, hasDocuments counts every document of the templates unless filterAware.
    const filtered = positive !== 'hasDocuments' || args.filterAware === true;
    const selector = (assertion.documentSelector as SuiteTest['documentSelector']) ?? test.documentSelector;
    if (selector && filtered) {
      docs = docs.filter((d) => isDeepStrictEqual(lookup(d.manifest, selector.path).value, selector.value));
      if (docs.length > 1 && selector.matchMany !== true) {
        problems.push(`${name}: documentSelector ${selector.path}=${JSON.stringify(selector.value)} matches ${docs.length} documents (matchMany is not set)`);
        continue;
      }
    }
    const index = (assertion.documentIndex as number | undefined) ?? test.documentIndex;
    if (index !== undefined && filtered) docs = docs[index] ? [docs[index]] : [];
    if (docs.length === 0 && positive !== 'hasDocuments') {
      problems.push(`${name}: no document selected in ${templates.join(', ')}`);
      continue;
    }
    const problem = check(docs, args);
    const inverted = negate !== (positive !== name);
    if (inverted ? problem === undefined : problem !== undefined) problems.push(`${name}${negate ? ' (not)' : ''}: ${problem ?? 'it holds'}`);
  }
  return problems;
}
