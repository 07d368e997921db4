import { AppError } from '@ars/errors';

export { pathParam, requestBody } from '@ars/http-app';

export function sandboxNotFound(): AppError {
  return AppError.notFound('Sandbox not found');
}
