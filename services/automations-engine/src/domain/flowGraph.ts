import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { describeSchemaError, jsonPath } from './schemaMessages.js';

export const NODE_TYPES = ['start', 'agent', 'condition', 'parallel', 'join', 'delay', 'await_event', 'set_variable', 'end'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export interface Position {
  x: number;
  y: number;
}

export interface FlowNode {
  id: string;
  type: NodeType;
  position: Position;
  /** Checked per type at publish (`nodeData.ts`), not here: a draft may hold half-filled data. */
  data: Record<string, unknown>;
}

export interface FlowEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface FlowGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
  viewport?: Viewport;
}

/** The contract leaves graph sizes open; these bound one draft's storage and the publish checks' work. */
export const GRAPH_LIMITS = {
  maxNodes: 500,
  maxEdges: 2000,
  /** Node, edge and handle ids. */
  maxIdLength: 200,
} as const;

const id = { type: 'string', minLength: 1, maxLength: GRAPH_LIMITS.maxIdLength } as const;
const handle = { type: ['string', 'null'], maxLength: GRAPH_LIMITS.maxIdLength } as const;
const finite = { type: 'number' } as const;

// `additionalProperties: false` with `removeAdditional` drops what React Flow adds (`width`,
// `selected`, `measured`, edge `animated` …): the stored graph is exactly the contract's shape.
// The same schema describes the graphs of answers (answerSchemas.ts, the OpenAPI document).
export const FLOW_GRAPH_SCHEMA = {
  type: 'object',
  required: ['nodes', 'edges'],
  additionalProperties: false,
  properties: {
    nodes: {
      type: 'array',
      maxItems: GRAPH_LIMITS.maxNodes,
      items: {
        type: 'object',
        required: ['id', 'type', 'position', 'data'],
        additionalProperties: false,
        properties: {
          id,
          type: { type: 'string', enum: NODE_TYPES },
          position: {
            type: 'object',
            required: ['x', 'y'],
            additionalProperties: false,
            properties: { x: finite, y: finite },
          },
          data: { type: 'object' },
        },
      },
    },
    edges: {
      type: 'array',
      maxItems: GRAPH_LIMITS.maxEdges,
      items: {
        type: 'object',
        required: ['id', 'source', 'target'],
        additionalProperties: false,
        properties: { id, source: id, target: id, sourceHandle: handle, targetHandle: handle },
      },
    },
    viewport: {
      type: 'object',
      required: ['x', 'y', 'zoom'],
      additionalProperties: false,
      properties: { x: finite, y: finite, zoom: { type: 'number', exclusiveMinimum: 0 } },
    },
  },
} as const;

// strictNumbers: `1e999` parses to Infinity, which is not a finite number.
const ajv = new Ajv({ allErrors: true, strict: true, strictNumbers: true, allowUnionTypes: true, removeAdditional: true });
// Compiled on first use, so that a start of the engine (or of a test system) compiles nothing it does not serve.
let graphShape: ValidateFunction<FlowGraph> | undefined;
const graphShapeValidator = (): ValidateFunction<FlowGraph> => (graphShape ??= ajv.compile<FlowGraph>(FLOW_GRAPH_SCHEMA));

export type FlowGraphParse = { ok: true; graph: FlowGraph } | { ok: false; problems: string[] };

function describe(error: ErrorObject, root: string): string {
  // The contract words the zoom rule as one: finite and greater than zero.
  if (/^\/viewport\/zoom$/.test(error.instancePath)) return `${jsonPath(root, error.instancePath)} must be a finite number greater than 0`;
  return describeSchemaError(error, root);
}

function duplicateIdProblems(items: readonly { id: string }[], path: string): string[] {
  const firstIndex = new Map<string, number>();
  const problems: string[] = [];
  items.forEach((item, index) => {
    const first = firstIndex.get(item.id);
    if (first === undefined) firstIndex.set(item.id, index);
    else problems.push(`${path}[${index}].id duplicates ${path}[${first}].id (${JSON.stringify(item.id)})`);
  });
  return problems;
}

/**
 * The structural check of a draft graph (POST/PUT /automations, validate): shapes, types, sizes and
 * unique ids; every problem as one sentence naming its path under `root`. Only structure: dangling
 * edges, unbound agents and invalid `data` are publish problems (`publishChecks.ts`). The returned
 * graph is a copy without properties the contract does not define.
 */
export function parseFlowGraph(value: unknown, root = 'graph'): FlowGraphParse {
  const copy: unknown = structuredClone(value);
  const validateGraphShape = graphShapeValidator();
  if (!validateGraphShape(copy)) {
    const problems = [...new Set((validateGraphShape.errors ?? []).map((error) => describe(error, root)))];
    return { ok: false, problems };
  }
  const graph = copy;
  const problems = [...duplicateIdProblems(graph.nodes, `${root}.nodes`), ...duplicateIdProblems(graph.edges, `${root}.edges`)];
  return problems.length > 0 ? { ok: false, problems } : { ok: true, graph };
}
