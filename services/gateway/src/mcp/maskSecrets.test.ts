import { REDACTED } from '@ars/sanitize';
import { MASKED, maskMcpServerSecrets } from './maskSecrets.js';

describe('svc_list_mcp_servers masks secret values: every env value and every http_headers value (names kept)', () => {
  test('command and URL shapes: values masked, names, command, args and enabled kept; the input is not changed', () => {
    const data = {
      servers: [
        { name: 'a', enabled: true, config: { command: 'npx', args: ['-y', 'srv'], env: { TOKEN: 'secret-1', OTHER: 'secret-2' } } },
        { name: 'b', enabled: false, config: { url: 'https://mcp.example.com/mcp', http_headers: { Authorization: 'Bearer secret-3' } } },
      ],
    };
    const before = JSON.stringify(data);
    const masked = maskMcpServerSecrets(data);
    expect(masked).toEqual({
      servers: [
        { name: 'a', enabled: true, config: { command: 'npx', args: ['-y', 'srv'], env: { TOKEN: MASKED, OTHER: MASKED } } },
        { name: 'b', enabled: false, config: { url: 'https://mcp.example.com/mcp', http_headers: { Authorization: MASKED } } },
      ],
    });
    expect(JSON.stringify(masked)).not.toMatch(/secret-/);
    expect(JSON.stringify(data)).toBe(before);
  });

  test('a URL’s password and query values are masked too; an unparsable URL is masked whole', () => {
    const masked = maskMcpServerSecrets({
      servers: [
        { name: 'c', enabled: true, config: { url: 'https://user:secret-4@mcp.example.com/mcp?key=secret-5&x=1' } },
        { name: 'd', enabled: true, config: { url: 'secret-6' } },
      ],
    });
    expect(JSON.stringify(masked)).not.toMatch(/secret-/);
    expect(JSON.stringify(masked)).toContain('mcp.example.com/mcp');
  });

  test('a command line’s secrets are redacted by the sanitizer’s rules: a sensitive flag’s value, NAME=value, token shapes; the rest is kept', () => {
    const github = `ghp_${'b'.repeat(36)}`;
    const masked = maskMcpServerSecrets({
      servers: [
        {
          name: 'e',
          enabled: true,
          config: { command: `env API_KEY=secret-7 npx`, args: ['-y', 'srv', '--api-key', 'secret-8', '--token=secret-9', github, '--port', '3000'] },
        },
      ],
    });
    expect(JSON.stringify(masked)).not.toMatch(/secret-|ghp_/);
    expect(masked).toEqual({
      servers: [
        {
          name: 'e',
          enabled: true,
          config: {
            command: `env API_KEY=${REDACTED} npx`,
            args: ['-y', 'srv', '--api-key', REDACTED, `--token=${REDACTED}`, REDACTED, '--port', '3000'],
          },
        },
      ],
    });
  });

  test('anything else passes as it is', () => {
    expect(maskMcpServerSecrets({ servers: [] })).toEqual({ servers: [] });
    expect(maskMcpServerSecrets({ other: 1 })).toEqual({ other: 1 });
  });
});
