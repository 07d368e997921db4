import { AppError } from '@ars/errors';
import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import type { FlowGraph } from '../domain/flowGraph.js';
import type { PublishedPointer } from '../store/automations.js';
import { automationAnswer, ownedAutomation, updateOwned } from './automationAnswer.js';
import { SET_NODE_MODEL_BODY_SCHEMA, type SetNodeModelBody } from './bodies.js';
import type { AutomationsDeps } from './deps.js';
import { requirePublishable, writeVersion } from './publishing.js';

const parseSetModel = validateBody<SetNodeModelBody>(SET_NODE_MODEL_BODY_SCHEMA);

/** The draft with the agent node's `modelId` set, or removed for null (the agent's own model). */
function withModel(graph: FlowGraph, body: SetNodeModelBody): FlowGraph {
  const node = graph.nodes.find((candidate) => candidate.id === body.nodeId);
  if (!node) throw AppError.badRequest(`nodeId ${JSON.stringify(body.nodeId)} is not a node of the draft`);
  if (node.type !== 'agent') throw AppError.badRequest(`nodeId ${JSON.stringify(body.nodeId)} is a ${node.type} node, not an agent node`);
  const { modelId: _previous, ...data } = node.data;
  const changed = { ...node, data: body.modelId === null ? data : { ...data, modelId: body.modelId } };
  return { ...graph, nodes: graph.nodes.map((candidate) => (candidate === node ? changed : candidate)) };
}

/**
 * `PUT /internal/users/:userId/automations/:automationId/model` `{nodeId, modelId, publish?}` →
 * `{automation}`. The node must exist and be an agent node; a non-null `modelId` must be one of the
 * user's models (`GET /models`); null clears the override. With `publish: true` the result is
 * published too, all or nothing: a refused publish leaves the draft as it was, and the draft and
 * the version pointer change in one document write.
 */
export function setNodeModel(router: Router, deps: AutomationsDeps): void {
  router.put('/users/:userId/automations/:automationId/model', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const id = pathParam(ctx, 'automationId');
    const body = parseSetModel(requestBody(ctx));
    const current = await ownedAutomation(deps, userId, id);
    const graph = withModel(current.draftGraph, body);
    if (body.modelId !== null) {
      const models = await deps.catalog.listModels(userId);
      if (!models.some((model) => model.id === body.modelId)) throw AppError.badRequest(`modelId ${JSON.stringify(body.modelId)} is not one of your models`);
    }
    const now = new Date();
    let version: PublishedPointer | undefined;
    if (body.publish === true) {
      await requirePublishable(deps, userId, graph);
      version = await writeVersion(deps, id, graph, now);
    }
    const updated = await updateOwned(deps, userId, id, { draftGraph: graph }, now, version);
    ok(ctx, await automationAnswer(deps, updated));
  });
}
