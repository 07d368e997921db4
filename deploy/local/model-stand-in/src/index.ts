// @ars/model-stand-in: a model provider for development and tests, speaking the OpenAI Responses
// and Anthropic Messages APIs to the real CLIs (never imported by production code).
export { MAX_REQUEST_BYTES, startModelStandIn, type ModelStandIn, type ModelStandInOptions } from './server.js';
export { findingProbe, planAnswer, readProbe, type Action, type Answer, type ToolCall, type TurnState } from './script.js';
export { readMessagesRequest, readResponsesRequest, type MessagesTurn, type ResponsesTurn } from './conversation.js';
export { parseSse, sseFrame, type SseEvent } from './sse.js';
