import { AppError } from '@ars/errors';

export { pathParam, requestBody } from '@ars/http-app';

export function runNotFound(): AppError {
  return AppError.notFound('Run not found');
}
