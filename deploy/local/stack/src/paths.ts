import { fileURLToPath } from 'node:url';

/** The repository root, found from this file's place (src/ or dist/ of deploy/local/stack). */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

export function fromRoot(relative: string): string {
  return repoRoot + relative;
}
