// The cases of one REST operation, generated from its description in the served document: a valid
// request (path parameters, required query and body fields, headers, all with the fuzzing tenant's
// own values) with exactly one part made hostile, so the mutation reaches the deepest check that
// reads it instead of stopping at the first missing field.
import fc from 'fast-check';
import type { ApiModel, FieldPath, Operation, Schema } from './openApi.js';
import { pathParameterNames } from './openApi.js';
import {
  Hostile,
  hostileAccept,
  hostileAuthorization,
  hostileBodies,
  hostileContentType,
  hostileHeaderValue,
  hostileJson,
  hostileSegment,
  hostileSuffix,
  percentEncode,
  preview,
  queryForms,
} from './hostile.js';
import type { RawRequest } from './send.js';

/** One request of the fuzzer and what was made hostile in it. */
export class RestCase {
  constructor(
    readonly operation: Operation,
    /** The part made hostile: `path sandboxId`, `body graph.nodes`, `header Idempotency-Key`, … */
    readonly target: string,
    readonly value: Hostile,
    readonly request: RawRequest,
  ) {}

  /** The pieces of the request a message may echo back (not a leak). */
  get sent(): string[] {
    return [this.request.path, this.value.text];
  }

  [fc.toStringMethod](): string {
    const { method, path, body } = this.request;
    return `${this.operation.id} — ${this.target} ← ${fc.stringify(this.value)}\n    ${method} ${preview(path, 160)}${body === undefined ? '' : `\n    body ${preview(body, 160)}`}`;
  }
}

/** The tenant's own value for a name in an operation (its repository, automation, …), undefined for none. */
export type Known = (template: string, name: string) => unknown;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const PLACEHOLDER = '\u0000fuzz\u0000';

interface Base {
  params: Record<string, string>;
  query: string[];
  headers: Record<string, string>;
  body: unknown;
}

/** The valid request's parts: path parameters, required query, headers (a fresh Idempotency-Key per case) and body. */
function baseOf(model: ApiModel, operation: Operation, known: Known, key: string): Base {
  const params: Record<string, string> = {};
  const query: string[] = [];
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const parameter of operation.parameters) {
    const value = known(operation.template, parameter.name) ?? model.baseValue(parameter.schema, () => undefined);
    if (parameter.in === 'path') params[parameter.name] = percentEncode(String(value));
    else if (parameter.in === 'query' && parameter.required) query.push(`${parameter.name}=${percentEncode(String(value))}`);
    else if (parameter.in === 'header' && parameter.required) headers[parameter.name.toLowerCase()] = /idempotency/i.test(parameter.name) ? key : String(value);
  }
  const body = operation.body ? model.baseValue(operation.body, (name) => known(operation.template, name)) : undefined;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { params, query, headers, body };
}

function requestOf(
  operation: Operation,
  prefix: string,
  base: Base,
  change: Partial<Base> & { suffix?: string; bodyText?: string; authorization?: string },
): RawRequest {
  const params = { ...base.params, ...change.params };
  const path = `${prefix}${operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => params[name] ?? '')}${change.suffix ?? ''}`;
  const query = change.query ?? base.query;
  const bodyText = change.bodyText ?? (base.body === undefined ? undefined : JSON.stringify(base.body));
  return {
    method: operation.method,
    path: query.length > 0 ? `${path}?${query.join('&')}` : path,
    headers: { ...base.headers, ...change.headers },
    ...(bodyText === undefined ? {} : { body: bodyText }),
    authorization: operation.open ? null : (change.authorization ?? 'pool'),
  };
}

/** The base body with `raw` (JSON text) at `path`, the objects on the way there made valid too. */
export function bodyWith(model: ApiModel, schema: Schema, base: unknown, path: FieldPath, raw: string, known: (name: string) => unknown): string {
  const root = structuredClone(base ?? {}) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = root;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      node[key] = PLACEHOLDER;
      return;
    }
    const next = path[index + 1];
    const here = node[key];
    if (typeof here !== 'object' || here === null) {
      const valid = model.baseValue(model.schemaAt(schema, path.slice(0, index + 1)), known, typeof key === 'string' ? key : '');
      node[key] = typeof next === 'number' ? (Array.isArray(valid) ? valid : []) : typeof valid === 'object' && valid !== null ? valid : {};
    }
    node = node[key] as Record<string | number, unknown>;
  });
  return JSON.stringify(root).replace(JSON.stringify(PLACEHOLDER), raw);
}

/** Every way to make one part of the operation's request hostile, as one arbitrary of cases. */
export function restCases(model: ApiModel, operation: Operation, known: Known): fc.Arbitrary<RestCase> {
  const prefix = model.prefix;
  const keyed = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<[T, Base]> =>
    fc.tuple(arbitrary, fc.uuid()).map(([value, key]) => [value, baseOf(model, operation, known, `fuzz-${key}`)]);
  const targets: fc.WeightedArbitrary<RestCase>[] = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<RestCase>): void => {
    targets.push({ arbitrary, weight });
  };

  for (const name of pathParameterNames(operation.template)) {
    add(
      3,
      keyed(hostileSegment).map(
        ([value, base]) =>
          new RestCase(operation, `path ${name}`, value, requestOf(operation, prefix, base, { params: { ...base.params, [name]: value.text } })),
      ),
    );
  }
  for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'query')) {
    add(
      2,
      keyed(queryForms(parameter.name)).map(
        ([value, base]) =>
          new RestCase(operation, `query ${parameter.name}`, value, requestOf(operation, prefix, base, { query: [...base.query, value.text] })),
      ),
    );
  }
  for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'header')) {
    const name = parameter.name.toLowerCase();
    add(
      2,
      keyed(fc.oneof(hostileHeaderValue, fc.constant(new Hostile('left out', '')))).map(([value, base]) => {
        const headers = { ...base.headers };
        if (value.label === 'left out') delete headers[name];
        else headers[name] = value.text;
        return new RestCase(operation, `header ${parameter.name}`, value, { ...requestOf(operation, prefix, base, {}), headers });
      }),
    );
  }
  const body = operation.body;
  if (body) {
    const own = (name: string): unknown => known(operation.template, name);
    for (const path of model.fields(body)) {
      add(
        3,
        keyed(hostileJson).map(
          ([value, base]) =>
            new RestCase(
              operation,
              `body ${path.join('.')}`,
              value,
              requestOf(operation, prefix, base, { bodyText: bodyWith(model, body, base.body, path, value.text, own) }),
            ),
        ),
      );
    }
  }
  if (BODY_METHODS.has(operation.method)) {
    add(
      2,
      keyed(fc.constant(null)).chain(([, base]) =>
        hostileBodies(JSON.stringify(base.body ?? {})).map((value) => {
          const request = requestOf(operation, prefix, base, { bodyText: value.text, headers: { ...base.headers, 'content-type': 'application/json' } });
          return new RestCase(operation, 'the whole body', value, { ...request, bodyEncoding: value.encoding });
        }),
      ),
    );
    add(
      1,
      keyed(hostileContentType).map(
        ([value, base]) =>
          new RestCase(
            operation,
            'header Content-Type',
            value,
            requestOf(operation, prefix, base, { headers: { ...base.headers, 'content-type': value.text } }),
          ),
      ),
    );
  }
  if (!operation.open) {
    add(
      1,
      keyed(hostileAuthorization).map(
        ([value, base]) => new RestCase(operation, 'header Authorization', value, requestOf(operation, prefix, base, { authorization: value.text })),
      ),
    );
  }
  add(
    1,
    keyed(hostileAccept).map(
      ([value, base]) =>
        new RestCase(operation, 'header Accept', value, requestOf(operation, prefix, base, { headers: { ...base.headers, accept: value.text } })),
    ),
  );
  add(
    1,
    keyed(fc.integer({ min: 8_000, max: 20_000 })).map(([length, base]) => {
      const value = new Hostile(`a header of ${length} characters`, 'h'.repeat(length));
      return new RestCase(
        operation,
        'a long header',
        value,
        requestOf(operation, prefix, base, { headers: { ...base.headers, 'x-fuzz-padding': value.text } }),
      );
    }),
  );
  add(
    1,
    keyed(fc.integer({ min: 10_000, max: 20_000 })).map(([length, base]) => {
      const value = new Hostile(`a URL of over ${length} characters`, `pad=${'u'.repeat(length)}`);
      return new RestCase(operation, 'a long URL', value, requestOf(operation, prefix, base, { query: [...base.query, value.text] }));
    }),
  );
  add(
    1,
    keyed(hostileSuffix).map(([value, base]) => new RestCase(operation, 'the path', value, requestOf(operation, prefix, base, { suffix: value.text }))),
  );
  return fc.oneof(...targets);
}

/**
 * The cases naming another tenant's resource (a path parameter or body field that takes an id):
 * the valid request with the bystander's id in that place. Empty when the operation names none.
 */
export function foreignCases(model: ApiModel, operation: Operation, known: Known, foreign: (template: string, name: string) => string | undefined): RestCase[] {
  const base = baseOf(model, operation, known, `fuzz-foreign-${operation.id}`);
  const cases: RestCase[] = [];
  for (const name of pathParameterNames(operation.template)) {
    const id = foreign(operation.template, name);
    if (id === undefined) continue;
    const value = new Hostile(`another tenant's ${name}`, percentEncode(id));
    cases.push(new RestCase(operation, `path ${name}`, value, requestOf(operation, model.prefix, base, { params: { ...base.params, [name]: value.text } })));
  }
  for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'query')) {
    const id = foreign(operation.template, parameter.name);
    if (id === undefined) continue;
    const value = new Hostile(`another tenant's ${parameter.name}`, `${parameter.name}=${percentEncode(id)}`);
    cases.push(new RestCase(operation, `query ${parameter.name}`, value, requestOf(operation, model.prefix, base, { query: [...base.query, value.text] })));
  }
  if (operation.body) {
    for (const path of model.fields(operation.body)) {
      const last = path[path.length - 1];
      const id = typeof last === 'string' ? foreign(operation.template, last) : undefined;
      if (id === undefined) continue;
      const value = new Hostile(`another tenant's ${last}`, JSON.stringify(id));
      const bodyText = bodyWith(model, operation.body, base.body, path, value.text, (name) => known(operation.template, name));
      cases.push(new RestCase(operation, `body ${path.join('.')}`, value, requestOf(operation, model.prefix, base, { bodyText })));
    }
  }
  return cases;
}
