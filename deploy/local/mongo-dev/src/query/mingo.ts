// mingo, set up once per process: every operator mingo has plus ours (`$type`) in one Context, and
// the options every query, pipeline and update passes to it.
//
// Why not `import { Query, Aggregator } from 'mingo'`: the package root's classes merge their
// built-in operator tables with a given context for every query (`makeOpts` → `Context.from` →
// `addOps`, then `ComputeOptions.init` copies the result again), ~45% of mingo's time per query in
// a profile of the catalog's `GET /repos`. The base classes (`mingo/query`, `mingo/aggregator`,
// `mingo/updater`) take the context as given and copy it once (`ComputeOptions.init`). Sharing it
// is safe: mingo only ever mutates its own copy (the updater adds operators to that copy).
import { Context } from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import type { Options } from 'mingo/types';
import { TYPE_OPERATOR, typeOperator } from './types.js';

/** The `$`-named operators of a module namespace (leaving out `default`, the CommonJS module object). */
function operatorsOf<T>(namespace: Record<string, unknown>): Record<`$${string}`, T> {
  return Object.fromEntries(Object.entries(namespace).filter(([name]) => name.startsWith('$'))) as Record<`$${string}`, T>;
}

type OperatorTables = NonNullable<Parameters<typeof Context.init>[0]>;

const MINGO_CONTEXT = Context.init({
  accumulator: operatorsOf(accumulatorOperators),
  expression: operatorsOf(expressionOperators),
  pipeline: operatorsOf(pipelineOperators),
  projection: operatorsOf(projectionOperators),
  query: { ...operatorsOf(queryOperators), [TYPE_OPERATOR]: typeOperator },
  window: operatorsOf(windowOperators),
} satisfies OperatorTables);

const BASE_OPTIONS: Partial<Options> = { scriptEnabled: false, useStrictMode: true, context: MINGO_CONTEXT };

/** mingo options for queries: all operators and MongoDB's `$type`, no scripting, optional `let` variables. */
export function queryOptions(variables?: Record<string, unknown>): Partial<Options> {
  return variables ? { ...BASE_OPTIONS, variables } : BASE_OPTIONS;
}
