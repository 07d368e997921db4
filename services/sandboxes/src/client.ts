// The sandboxes service's internal API as its callers use it (runs): one method per route, typed
// with @ars/contract's shapes. Imports no sandboxes runtime, so a caller pulls in nothing else.
import type { SandboxCancelAnswer } from '@ars/contract';
import type { HttpClient } from '@ars/http-client';

/** The public body's JSON Schema (the gateway's MCP tools take their input schemas from it). */
export { CREATE_SANDBOX_BODY_SCHEMA } from './http/bodies.js';
/** The public body's type (the typed TypeScript client, @ars/client, sends it). */
export type { CreateSandboxBody } from './domain/sandboxRequest.js';

export interface SandboxesClient {
  /**
   * `POST /internal/runs/:runId/cancel` `{userId}`: stops the run's harness, or records the cancel
   * so the run never starts. Another user's run is NOT_FOUND.
   */
  cancelRun(runId: string, userId: string): Promise<SandboxCancelAnswer>;
}

/** `http`'s base URL is the service's root (`SANDBOXES_URL`); every failure is the AppError the client maps. */
export function createSandboxesClient(http: HttpClient): SandboxesClient {
  return {
    async cancelRun(runId, userId) {
      return http.post<SandboxCancelAnswer>(`/internal/runs/${encodeURIComponent(runId)}/cancel`, { userId });
    },
  };
}
