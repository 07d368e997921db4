// The served OpenAPI document read as the fuzzer needs it: every operation with its path, query and
// header parameters and every field of its request body at any depth ($refs followed), and a valid
// base value for a schema (its required fields, with values the caller's own resources give).
import { fetchAnswer } from '@ars/testenv';

/** A JSON Schema as the document writes one (the subset the fuzzer reads). */
export type Schema =
  | boolean
  | {
      $ref?: string;
      type?: string | string[];
      properties?: Record<string, Schema>;
      required?: string[];
      items?: Schema;
      enum?: unknown[];
      const?: unknown;
      minimum?: number;
      allOf?: Schema[];
      anyOf?: Schema[];
      oneOf?: Schema[];
    };

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

interface RawOperation {
  operationId: string;
  tags?: string[];
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> } | { $ref: string }>;
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, RawOperation | unknown>>;
  components?: Record<string, Record<string, unknown>>;
}

export interface Operation {
  id: string;
  method: string;
  /** The document's template, `/runs/{runId}`. */
  template: string;
  tags: readonly string[];
  parameters: readonly Parameter[];
  /** The request body's schema ($refs resolved at the top), when the operation takes one. */
  body: Exclude<Schema, boolean> | undefined;
  bodyRequired: boolean;
  /** The documented statuses. */
  statuses: readonly number[];
  /** Whether its success answers are in the envelope (`{ok: true, data}`). */
  enveloped: boolean;
  /** The media types a success may come as (`application/json`, `text/event-stream`). */
  successTypes: readonly string[];
  /** No PAT needed (security `[]`). */
  open: boolean;
}

/** A field of a body: the keys (and array indexes) from the body's top down to it. */
export type FieldPath = readonly (string | number)[];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch', 'head'];

export async function servedDocument(baseUrl: string): Promise<OpenApiDocument> {
  const answer = await fetchAnswer<never>(`${baseUrl}/api/v1/svc/openapi.json`);
  if (answer.status !== 200) throw new Error(`GET /api/v1/svc/openapi.json answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as OpenApiDocument;
}

export class ApiModel {
  readonly prefix: string;
  readonly operations: readonly Operation[];

  constructor(readonly document: OpenApiDocument) {
    this.prefix = document.servers?.[0]?.url ?? '';
    this.operations = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, raw]) => this.operationOf(template, method, raw as RawOperation)),
    );
  }

  /** `#/components/schemas/Run` → that object; anything else as it is. */
  resolve<T>(value: T | { $ref: string }): T {
    let current: unknown = value;
    for (let hops = 0; hops < 20 && typeof current === 'object' && current !== null && '$ref' in current; hops += 1) {
      const ref = (current as { $ref: string }).$ref;
      if (!ref.startsWith('#/')) throw new Error(`an external $ref the fuzzer cannot follow: ${ref}`);
      current = ref
        .slice(2)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], this.document);
      if (current === undefined) throw new Error(`a $ref to nothing: ${ref}`);
    }
    return current as T;
  }

  private operationOf(template: string, method: string, raw: RawOperation): Operation {
    const parameters = (raw.parameters ?? []).map((parameter) => this.resolve<Parameter>(parameter));
    const bodySchema = raw.requestBody?.content?.['application/json']?.schema;
    const body = bodySchema === undefined ? undefined : this.resolve(bodySchema);
    const statuses = Object.keys(raw.responses)
      .map(Number)
      .filter((status) => Number.isInteger(status));
    const success = Object.entries(raw.responses).find(([status]) => status.startsWith('2'))?.[1];
    const successContent = success ? (this.resolve(success).content ?? {}) : {};
    const successSchema = successContent['application/json']?.schema;
    const resolvedSuccess = successSchema === undefined ? undefined : this.resolve(successSchema);
    return {
      id: raw.operationId,
      method: method.toUpperCase(),
      template,
      tags: raw.tags ?? [],
      parameters,
      body: typeof body === 'object' ? body : undefined,
      bodyRequired: raw.requestBody?.required === true,
      statuses,
      enveloped: typeof resolvedSuccess === 'object' && (resolvedSuccess.required ?? []).includes('ok'),
      successTypes: Object.keys(successContent),
      open: Array.isArray(raw.security) && raw.security.length === 0,
    };
  }

  /**
   * Every field of a schema, at any depth: each property, each property of an object property, the
   * first item of an array (index 0). Depth is bounded: the request bodies are shallow, and a
   * recursive schema would otherwise never end.
   */
  fields(schema: Schema | undefined, depth = 0): FieldPath[] {
    const resolved = schema === undefined ? undefined : this.resolve(schema);
    if (typeof resolved !== 'object' || depth > 6) return [];
    const paths: FieldPath[] = [];
    for (const [name, child] of Object.entries(this.propertiesOf(resolved))) {
      if (child === false) continue;
      paths.push([name]);
      for (const below of this.fields(child, depth + 1)) paths.push([name, ...below]);
    }
    const items = resolved.items === undefined ? undefined : this.resolve(resolved.items);
    if (items !== undefined) {
      paths.push([0]);
      for (const below of this.fields(items, depth + 1)) paths.push([0, ...below]);
    }
    return paths;
  }

  /** The properties of an object schema, those of its `allOf` parts too. */
  propertiesOf(schema: Schema): Record<string, Schema> {
    const resolved = this.resolve(schema);
    if (typeof resolved !== 'object') return {};
    const merged: Record<string, Schema> = { ...(resolved.properties ?? {}) };
    for (const part of resolved.allOf ?? []) Object.assign(merged, this.propertiesOf(part));
    return merged;
  }

  /** The schema at a field path (undefined when the path leaves the schema). */
  schemaAt(schema: Schema, path: FieldPath): Schema | undefined {
    let current: Schema | undefined = this.resolve(schema);
    for (const key of path) {
      if (typeof current !== 'object') return undefined;
      current = typeof key === 'number' ? current.items : this.propertiesOf(current)[key];
      if (current !== undefined) current = this.resolve(current);
    }
    return current;
  }

  /**
   * A valid value for a schema: its required fields (recursively), each from `known` when its name
   * is one of the caller's resources (a repository, an automation, …), else the first value its
   * schema allows.
   */
  baseValue(schema: Schema | undefined, known: (name: string) => unknown, name = ''): unknown {
    const resolved = schema === undefined ? undefined : this.resolve(schema);
    const mine = name === '' ? undefined : known(name);
    if (mine !== undefined) return mine;
    if (typeof resolved !== 'object') return 'fuzz';
    if ('const' in resolved) return resolved.const;
    if (resolved.enum && resolved.enum.length > 0) return resolved.enum[0];
    const types = resolved.type === undefined ? [] : [resolved.type].flat();
    const properties = this.propertiesOf(resolved);
    if (types.includes('object') || Object.keys(properties).length > 0) {
      const required = new Set([...(resolved.required ?? []), ...(resolved.allOf ?? []).flatMap((part) => this.requiredOf(part))]);
      return Object.fromEntries(Object.entries(properties).flatMap(([key, child]) => (required.has(key) ? [[key, this.baseValue(child, known, key)]] : [])));
    }
    if (types.includes('array')) return [];
    if (types.includes('integer') || types.includes('number')) return resolved.minimum ?? 1;
    if (types.includes('boolean')) return false;
    if (types.includes('string')) return 'fuzz';
    if (types.includes('null')) return null;
    return {};
  }

  private requiredOf(schema: Schema): string[] {
    const resolved = this.resolve(schema);
    return typeof resolved === 'object' ? (resolved.required ?? []) : [];
  }
}

/** `/runs/{runId}` → `['runId']`. */
export function pathParameterNames(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}
