// What pr-review's callers take from it (the gateway): the public rerun body's JSON Schema, which the
// MCP tool svc_rerun_pr_review takes its input schema from. The gateway reaches pr-review's routes by
// forwarding, so there are no methods here yet.
export { PULL_REQUEST_BODY_SCHEMA as RERUN_PR_REVIEW_BODY_SCHEMA } from './http/bodies.js';
