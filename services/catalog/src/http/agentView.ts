import type { Agent } from '@ars/contract';
import type { AgentDoc } from '../store/collections.js';

export function toAgent(doc: AgentDoc): Agent {
  return { id: doc._id, name: doc.name, slug: doc.slug, model: doc.model, description: doc.description, category: doc.category, preset: false };
}
