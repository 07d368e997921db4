// A source host's refusal, said in the contract's envelope to whoever asked for a review now.
import { AppError } from '@ars/errors';
import { SourceHostError } from '@ars/source-host';

/**
 * Rate limited or unreachable: 503 with the host's Retry-After; the credentials refused: 409 (no
 * usable access token); the repository gone from the host: 404; the content refused: 409 (the
 * attempt could not be queued). Anything that is not the host's stays as it is.
 */
export function hostFailure(error: unknown, fullName: string): unknown {
  if (!(error instanceof SourceHostError)) return error;
  switch (error.kind) {
    case 'rate_limited':
      return AppError.unavailable(`The source host is rate limiting requests for ${fullName}; try again later`, error.retryAfterSeconds ?? 60);
    case 'unavailable':
      return AppError.unavailable(`The source host of ${fullName} could not be reached`, 30);
    case 'unauthorized':
    case 'forbidden':
      return AppError.conflict(`No source-host access token for ${fullName} (the host answered ${error.status})`);
    case 'not_found':
      return AppError.notFound('Repository not found');
    case 'unprocessable':
      return AppError.conflict(`The review of ${fullName} could not be queued: the source host refused it (${error.status})`);
  }
}

/** Runs a source-host call, turning its refusal into the envelope's error. */
export async function onHost<T>(fullName: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw hostFailure(error, fullName);
  }
}
