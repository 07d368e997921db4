import { REDACTED, redactArgv } from '@ars/sanitize';

describe('a command line given as arguments: each is redacted, and the value after a sensitive flag given alone goes whole', () => {
  test('["--api-key", "x"] and ["-Dpassword", "x"]: the value goes; the flags stay readable', () => {
    expect(redactArgv(['-y', 'server', '--api-key', 'abc123', '-Dpassword', 'hunter2', '--port', '8080'])).toEqual([
      '-y',
      'server',
      '--api-key',
      REDACTED,
      '-Dpassword',
      REDACTED,
      '--port',
      '8080',
    ]);
  });

  test('an argument holding a secret by itself is redacted as text (--name=value, NAME=value, token shapes, URL credentials)', () => {
    const github = `ghp_${'a'.repeat(36)}`;
    expect(redactArgv(['--token=abc123', 'API_KEY=abc123', github, 'postgres://me:pw@db/app'])).toEqual([
      `--token=${REDACTED}`,
      `API_KEY=${REDACTED}`,
      REDACTED,
      'postgres://***@db/app',
    ]);
  });

  test('a sensitive flag followed by another flag, a last flag, and ordinary arguments are kept', () => {
    const args = ['--password-stdin', '--user', 'me', '@modelcontextprotocol/server-filesystem', '/srv/data', '--no-auth'];
    expect(redactArgv(args)).toEqual(args);
  });
});
