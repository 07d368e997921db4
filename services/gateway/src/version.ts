import { readFileSync } from 'node:fs';

/**
 * The gateway's package version (services/gateway/package.json): the OpenAPI document's
 * `info.version`. Read from the file beside src/ and dist/ alike (both are one level under it).
 */
export function gatewayVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const version = (manifest as { version?: unknown }).version;
  if (typeof version !== 'string') throw new Error('services/gateway/package.json has no version');
  return version;
}
