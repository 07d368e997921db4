import { AppError } from '@ars/errors';
import { PUBLIC_ROUTES, type PublicRoute } from '../domain/routeTable.js';
import { internalPath } from './forwardToOwner.js';

const route = (key: string): PublicRoute => {
  const found = PUBLIC_ROUTES.find((candidate) => `${candidate.method} ${candidate.path}` === key);
  if (!found) throw new Error(`no route ${key}`);
  return found;
};

describe('a public route’s path parameters become the owner’s internal path, scoped to the caller', () => {
  test('each parameter is percent-encoded, so a slash or a dot-dot inside it stays inside its segment', () => {
    expect(internalPath(route('GET /automations/:automationId/runs/:runId'), 'usr_1', { automationId: 'a/../b', runId: 'r 1' })).toBe(
      '/internal/users/usr_1/automations/a%2F..%2Fb/runs/r%201',
    );
  });

  test('an empty, `.` or `..` parameter is NOT_FOUND: it never reaches the owner', () => {
    for (const runId of ['', '.', '..']) expect(() => internalPath(route('GET /runs/:runId'), 'usr_1', { runId })).toThrow(AppError);
  });

  test('a parameter that is not well-formed Unicode (a lone surrogate in a tool’s JSON arguments) names nothing, never a URIError', () => {
    // Before pathSegment, encodeURIComponent threw a URIError here, and the tool call answered -32603 (issue 32's fuzzer).
    expect(internalPath(route('GET /runs/:runId'), 'usr_1', { runId: '\ud800' })).toBe('/internal/users/usr_1/runs/%EF%BF%BD');
    expect(internalPath(route('GET /automations/:automationId/runs'), 'usr_1', { automationId: 'a\udc00' })).toBe(
      '/internal/users/usr_1/automations/a%EF%BF%BD/runs',
    );
  });
});
