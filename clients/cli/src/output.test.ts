import { ArsApiError } from './api.js';
import { CliError, errorLine, eventLine, exitCodeOf, maskedServer } from './output.js';
import type { Run } from './api.js';

describe('errors print as one line: code, HTTP status, message, request id', () => {
  test('an answer of the service, with and without a request id', () => {
    expect(errorLine(new ArsApiError({ code: 'NOT_FOUND', status: 404, message: 'Run not found', requestId: 'req-1' }))).toBe(
      'error NOT_FOUND (HTTP 404): Run not found [request req-1]',
    );
    expect(errorLine(new ArsApiError({ code: 'CONNECTION_FAILED', status: 0, message: 'Could not reach x' }))).toBe(
      'error CONNECTION_FAILED (HTTP 0): Could not reach x',
    );
  });
  test('an error of the command line itself is HTTP 0', () => {
    expect(errorLine(new CliError('STATE_MISMATCH', 'refused'))).toBe('error STATE_MISMATCH (HTTP 0): refused');
  });
});

describe('ars mcp-servers never shows a secret value', () => {
  test('env and header values masked, names kept; a URL’s password and query values masked', () => {
    const shown = maskedServer({
      name: 'docs',
      enabled: true,
      config: {
        command: 'npx',
        args: ['server'],
        env: { API_KEY: 'sk-secret' },
        http_headers: { Authorization: 'Bearer secret' },
        url: 'https://u:pw@h.example/p?key=secret',
      },
    });
    expect(JSON.stringify(shown)).not.toMatch(/secret|pw@/);
    expect(shown.config).toMatchObject({ command: 'npx', args: ['server'], env: { API_KEY: '••••' }, http_headers: { Authorization: '••••' } });
    expect(shown.config.url).toBe('https://u:%E2%80%A2%E2%80%A2%E2%80%A2%E2%80%A2@h.example/p?key=%E2%80%A2%E2%80%A2%E2%80%A2%E2%80%A2');
  });
});

describe('a followed run exits by its outcome', () => {
  test.each([
    ['success', 0],
    ['failed', 1],
    ['cancelled', 130],
  ])('%s → %i', (status, code) => {
    expect(exitCodeOf({ status } as Run)).toBe(code);
  });
  test('an event is one line: time, type, tool, message', () => {
    expect(eventLine({ id: 'e1', type: 'tool_call', toolName: 'shell', message: 'ls\n-la', payload: {}, createdAt: '2026-01-01T10:11:12.000Z' })).toBe(
      '10:11:12  tool_call  shell  ls ⏎ -la',
    );
  });
});
