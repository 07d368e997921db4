import type { FlowGraph } from './flowGraph.js';

/**
 * The draft of an automation created without `graph`: start → agent → end, left to right. The
 * agent's `agentId` is empty and its prompt a placeholder, so the draft saves as is and publish
 * names the one thing left to do (bind the agent: `UNBOUND_AGENT` on node `agent`).
 */
export function defaultDraft(): FlowGraph {
  return {
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
      { id: 'agent', type: 'agent', position: { x: 250, y: 0 }, data: { agentId: '', prompt: 'Describe the task for the agent.' } },
      { id: 'end', type: 'end', position: { x: 500, y: 0 }, data: {} },
    ],
    edges: [
      { id: 'start-agent', source: 'start', target: 'agent' },
      { id: 'agent-end', source: 'agent', target: 'end' },
    ],
    viewport: { x: 0, y: 0, zoom: 1 },
  };
}
