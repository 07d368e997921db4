// The one seam between `ars` and `@ars/client`: the commands see only `ArsApi`, `createApi`,
// `ArsApiError` and `exchangeLoginCode`, so a test can hand the program any object of that shape.
import { ArsClient, type ArsClientOptions } from '@ars/client';

export { ArsApiError, exchangeLoginCode } from '@ars/client';
export type {
  AutomationSummary,
  Harness,
  McpServerItem,
  Repo,
  Run,
  RunEvent,
  Sandbox,
  StartRunBody,
  TriggerBody,
  LoginTokenData as LoginToken,
} from '@ars/client';

/** The client's method groups the CLI calls. */
export type ArsApi = Pick<ArsClient, 'repos' | 'sandboxes' | 'automations' | 'prReviews' | 'runs' | 'mcpServers' | 'apiKeys'>;

export function createApi(options: ArsClientOptions): ArsApi {
  return new ArsClient(options);
}
