import { LONGEST_MATCH, REDACTED, knownSecrets, redactSecrets, redactionWindow, sanitizeText } from '@ars/sanitize';

describe('every known secret value is redacted', () => {
  test('values of 6 characters or more, wherever they are', () => {
    const known = knownSecrets(['hunter2hunter2', 'zz9-plural-z-alpha']);
    expect(redactSecrets('using hunter2hunter2 for zz9-plural-z-alpha; again hunter2hunter2', { knownSecrets: known })).toBe(
      'using [REDACTED] for [REDACTED]; again [REDACTED]',
    );
  });
  test('empty and short values are ignored (they would redact ordinary words)', () => {
    expect(redactSecrets('cat dog added', { knownSecrets: knownSecrets(['', 'cat', 'added', undefined]) })).toBe('cat dog added');
  });
  test('a secret containing another is redacted whole (longest first)', () => {
    expect(redactSecrets('key abcdef1234567890 end', { knownSecrets: knownSecrets(['abcdef', 'abcdef1234567890']) })).toBe('key [REDACTED] end');
  });
});

describe('credentials in URLs are redacted', () => {
  test('scheme://user:secret@host becomes scheme://***@host', () => {
    expect(redactSecrets("fatal: unable to access 'https://x-access-token:v1.abcdefabcdef@github.com/acme/api.git/': 403")).toBe(
      "fatal: unable to access 'https://***@github.com/acme/api.git/': 403",
    );
    expect(redactSecrets('postgres://app:pa55word@db:5432/app ready')).toBe('postgres://***@db:5432/app ready');
    expect(redactSecrets('mongodb+srv://u:p@cluster.example/db and redis://:pw@host:6379')).toBe(
      'mongodb+srv://***@cluster.example/db and redis://***@host:6379',
    );
  });
  test('a URL without credentials is unchanged', () => {
    expect(redactSecrets('see https://github.com/acme/api@v1 and git@github.com:a/b')).toBe('see https://github.com/acme/api@v1 and git@github.com:a/b');
  });
});

describe('Authorization: Bearer x, Basic x and token x are redacted', () => {
  test('the credential goes, the scheme stays readable', () => {
    expect(redactSecrets('curl -H "Authorization: Bearer abc.def-ghi" https://api')).toBe('curl -H "Authorization: Bearer [REDACTED]" https://api');
    expect(redactSecrets('sending Bearer x')).toBe('sending Bearer [REDACTED]');
    expect(redactSecrets('authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe('authorization: Basic [REDACTED]');
    expect(redactSecrets('git -c http.extraheader="Basic dXNlcjpwYXNzd29yZA=="')).toBe('git -c http.extraheader="Basic [REDACTED]"');
    expect(redactSecrets('header token abcdef123456')).toBe('header token [REDACTED]');
  });
});

describe('assignments whose name looks sensitive are redacted', () => {
  test.each([
    ['GITHUB_TOKEN=abc123', 'GITHUB_TOKEN=[REDACTED]'],
    ['export DB_PASSWORD="two words"', 'export DB_PASSWORD="[REDACTED]"'],
    ['client_secret: shh', 'client_secret: [REDACTED]'],
    ['{"apiKey": "v4lue", "name": "app"}', '{"apiKey": "[REDACTED]", "name": "app"}'],
    ["{'PRIVATE_KEY': 'abc'}", "{'PRIVATE_KEY': '[REDACTED]'}"],
    ['//registry.npmjs.org/:_authToken=npm_abcdef', '//registry.npmjs.org/:_authToken=[REDACTED]'],
    ['NPM_AUTH=dXNlcg== basicAuth=x', 'NPM_AUTH=[REDACTED] basicAuth=[REDACTED]'],
    [
      'x-api-key: q1w2e3 AWS_ACCESS_KEY_ID=abc GOOGLE_CREDENTIALS=/x.json passwd=p',
      'x-api-key: [REDACTED] AWS_ACCESS_KEY_ID=[REDACTED] GOOGLE_CREDENTIALS=[REDACTED] passwd=[REDACTED]',
    ],
    ['payload {\\"secret\\": \\"v a l\\"}', 'payload {\\"secret\\": \\"[REDACTED]\\"}'],
    ['password: "no closing quote', 'password: "[REDACTED]'],
    ['password: "no closing quote\nnext line', 'password: "[REDACTED]\nnext line'],
    ['env: GITHUB_TOKEN=abc123', 'env: GITHUB_TOKEN=[REDACTED]'],
    ['GET https://registry.example/pkg?access_token=abc123&x=1 401', 'GET https://registry.example/pkg?access_token=[REDACTED] 401'],
    ['HOME=/root\nOPENAI_API_KEY=whatever\nPATH=/bin', 'HOME=/root\nOPENAI_API_KEY=[REDACTED]\nPATH=/bin'],
  ])('%s', (line, expected) => {
    expect(redactSecrets(line)).toBe(expected);
  });
  test('names that only resemble a sensitive one are kept (usage counts, authors, paths)', () => {
    const line = 'input_tokens: 1234 max_tokens=5 AUTHOR=Jane NODE_ENV=production path=/usr/bin if token == null';
    expect(redactSecrets(line)).toBe(line);
  });
});

describe('command-line flags whose name looks sensitive are redacted: --name=value, --name value, -Dname=value', () => {
  test.each([
    ['mytool --api-key=abc123 --verbose', 'mytool --api-key=[REDACTED] --verbose'],
    ['mysql -u root --password=hunter2 db', 'mysql -u root --password=[REDACTED] db'],
    ['deploy --client-secret s3cr3t --region eu', 'deploy --client-secret [REDACTED] --region eu'],
    ['java -Ddb.password=hunter2 -jar app.jar', 'java -Ddb.password=[REDACTED] -jar app.jar'],
    ['server --auth-token "two words" --port 80', 'server --auth-token "[REDACTED]" --port 80'],
    ['["--api-key", "abc123"] joined: --api-key abc123', '["--api-key", "abc123"] joined: --api-key [REDACTED]'],
  ])('%s', (line, expected) => {
    expect(redactSecrets(line)).toBe(expected);
  });
  test('a sensitive flag followed by another flag has no value to redact; other flags keep their values', () => {
    const line = 'docker login --password-stdin -u me && git log --author Jane --max-tokens 100 --token-file ./t';
    expect(redactSecrets(line)).toBe(line);
  });
});

describe('well-known token shapes are redacted', () => {
  const pat = `tok_${'A1b2C3d4'.repeat(4)}`;
  test.each([
    ['this service’s PAT', `using ${pat} now`],
    ['GitHub ghp_', `remote ghp_${'a'.repeat(36)} ok`],
    ['GitHub gho_/ghu_/ghs_/ghr_', `gho_${'b'.repeat(36)} ghu_${'c'.repeat(36)} ghs_${'d'.repeat(36)} ghr_${'e'.repeat(36)}`],
    ['GitHub fine-grained', `github_pat_11ABCDEFG0${'x'.repeat(40)}`],
    ['GitLab', `glpat-${'g'.repeat(20)}`],
    ['Anthropic', `key sk-ant-api03-${'Z'.repeat(40)} set`],
    ['OpenAI', `key sk-proj-${'y'.repeat(40)} set`],
    ['Slack', 'xoxb-1234567890-abcdefghij'],
    ['AWS access key id', 'id AKIAIOSFODNN7EXAMPLE used'],
    ['AWS temporary access key id', 'id ASIAIOSFODNN7EXAMPLE used'],
    ['JWT', `jwt eyJhbGciOiJIUzI1NiJ9.${'p'.repeat(40)}.${'s'.repeat(43)} ok`],
  ])('%s', (_name, line) => {
    const out = redactSecrets(line);
    expect(out).toContain(REDACTED);
    expect(out).not.toMatch(/tok_A1b2|(?:ghp|gho|ghu|ghs|ghr)_[a-e]{4}|github_pat_11|glpat-g|sk-ant-api|sk-proj-|xoxb-|AKIAIOSFODNN7|ASIAIOSFODNN7|eyJhbGci/);
  });
  test('a tok_ of another length is not a PAT', () => {
    expect(redactSecrets('tok_short')).toBe('tok_short');
  });
  test('a PEM private key block becomes one [REDACTED]', () => {
    const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n-----END OPENSSH PRIVATE KEY-----';
    expect(redactSecrets(`before\n${pem}\nafter`)).toBe('before\n[REDACTED]\nafter');
    expect(redactSecrets('{"key": "-----BEGIN RSA PRIVATE KEY-----\\nMIIEow\\n-----END RSA PRIVATE KEY-----\\n"}')).toBe('{"key": "[REDACTED]\\n"}');
    expect(redactSecrets('-----BEGIN RSA PRIVATE KEY-----\nMIIEow (no end)')).toBe(REDACTED);
  });
});

describe('a string is cut to its cap plus the longest secret a pattern can match, redacted, then truncated to its cap', () => {
  test('the window is the cap plus LONGEST_MATCH (or the longest known secret, when longer)', () => {
    expect(redactionWindow(2_000)).toBe(2_000 + LONGEST_MATCH);
    const long = 'k'.repeat(LONGEST_MATCH + 10);
    expect(redactionWindow(2_000, knownSecrets([long]))).toBe(2_000 + long.length);
  });

  test('what lies past the window changes nothing but the count in the marker', () => {
    const head = 'x '.repeat(5_000);
    const a = sanitizeText(`${head}${'TOKEN'.repeat(50_000)}`);
    const b = sanitizeText(`${head}${'q'.repeat(250_000)}`);
    expect(a.length).toBeLessThanOrEqual(2_000);
    expect(a.replace(/\d+ chars\]$/, '')).toBe(b.replace(/\d+ chars\]$/, ''));
  });

  test.each([
    ['a GitHub token', `ghp_${'a'.repeat(36)}`],
    ['a JWT', `eyJhbGciOiJIUzI1NiJ9.${'p'.repeat(1_500)}.${'s'.repeat(43)}`],
    ['an assignment', `API_TOKEN="${'v'.repeat(3_000)}"`],
    ['a PEM block', `-----BEGIN RSA PRIVATE KEY-----\n${'M'.repeat(3_000)}\n-----END RSA PRIVATE KEY-----`],
  ])('a cut never leaves the first part of %s visible, wherever it starts', (_name, secret) => {
    const cap = 300;
    for (let start = 0; start < cap + 20; start += 7) {
      const out = sanitizeText(`${' '.repeat(start)}${secret} and more text after it`, { cap });
      expect(out.length).toBeLessThanOrEqual(cap);
      expect(out).not.toMatch(/ghp_a|eyJh|vvvv|MMMM|pppp/);
    }
  });

  test('exactly the cap stays whole; over it, the marker counts what was over', () => {
    expect(sanitizeText('y'.repeat(2_000))).toBe('y'.repeat(2_000));
    expect(sanitizeText('y'.repeat(300_000))).toMatch(/…\[truncated 298000 chars\]$/);
    expect(sanitizeText('short', { cap: 3 })).toBe('sho');
  });
});

describe('an AWS secret access key is redacted next to its access key id, wherever the two stand together', () => {
  const id = 'AKIAIOSFODNN7EXAMPLE';
  const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  test.each([
    ['separated by a blank', `creds ${id} ${secret} ok`, `creds ${REDACTED} ${REDACTED} ok`],
    ['as id:secret', `${id}:${secret}`, `${REDACTED}:${REDACTED}`],
    ['in a credentials CSV row', `default,${id},${secret}`, `default,${REDACTED},${REDACTED}`],
    ['quoted, as in JSON', `["${id}", "${secret}"]`, `["${REDACTED}", "${REDACTED}"]`],
    ['a temporary id and a tab', `ASIAIOSFODNN7EXAMPLE\t${secret}`, `${REDACTED}\t${REDACTED}`],
  ])('%s', (_how, line, expected) => {
    expect(redactSecrets(line)).toBe(expected);
  });

  test('a 40-character word next to no id stays (it is not known to be a secret)', () => {
    expect(redactSecrets(`commit ${'a1b2c3d4e5'.repeat(4)} merged`)).toBe(`commit ${'a1b2c3d4e5'.repeat(4)} merged`);
  });
});

describe('a secret-shaped value is redacted after a label of several words that names a secret', () => {
  test.each([
    ['Secret access key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', `Secret access key: ${REDACTED}`],
    ['Client secret: 8f14e45fceea167a5a36dedd4bea2543', `Client secret: ${REDACTED}`],
    ['API key:   abcdefghijklmnop1234', `API key:   ${REDACTED}`],
  ])('%s', (line, expected) => {
    expect(redactSecrets(line)).toBe(expected);
  });

  test('prose with a sensitive word before a colon keeps a short value, and a label naming no secret keeps a long one', () => {
    expect(redactSecrets('Fixed the auth middleware: now it refreshes')).toBe('Fixed the auth middleware: now it refreshes');
    expect(redactSecrets('Commit hash: 0123456789abcdef0123')).toBe('Commit hash: 0123456789abcdef0123');
  });
});
