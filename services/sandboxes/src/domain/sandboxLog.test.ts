import { redactSecrets } from '@ars/sanitize';
import { SandboxLog } from './sandboxLog.js';

const CAP = 64 * 1024;

/** The stored text of `chunks` appended one by one. */
function logOf(chunks: readonly (Buffer | string)[], options: { capBytes?: number; secrets?: readonly string[] } = {}): SandboxLog {
  const log = new SandboxLog({ capBytes: options.capBytes ?? CAP, secrets: options.secrets ?? [] });
  for (const chunk of chunks) log.append(chunk);
  return log;
}
const textOf = (chunks: readonly (Buffer | string)[], options: { capBytes?: number; secrets?: readonly string[] } = {}): string =>
  logOf(chunks, options).text();

/** Every single byte as its own chunk: the worst possible chunking. */
function byteByByte(text: string): Buffer[] {
  return [...Buffer.from(text, 'utf8')].map((byte) => Buffer.from([byte]));
}

const MARKER = /^\[… (\d+) bytes omitted …\]$/gm;
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

describe('output is decoded as UTF-8 correctly across chunk boundaries', () => {
  const text = 'héllo wörld — 3 € — 𝄞 and 😀 done\n';
  test('a character split between chunks is not turned into replacement characters', () => {
    expect(textOf(byteByByte(text))).toBe(text);
    const euro = Buffer.from('€', 'utf8');
    expect(
      textOf([Buffer.concat([Buffer.from('price '), euro.subarray(0, 1)]), euro.subarray(1, 2), Buffer.concat([euro.subarray(2), Buffer.from('5\n')])]),
    ).toBe('price €5\n');
  });
  test('a string chunk after a Buffer that ended inside a character comes after it, in order', () => {
    const smile = Buffer.from('😀', 'utf8');
    expect(textOf([Buffer.from('a'), 'b', smile.subarray(0, 2), smile.subarray(2), 'c\n'])).toBe('ab😀c\n');
    // The character can no longer complete: one replacement character, then the string.
    expect(textOf([smile.subarray(0, 2), 'ok\n'])).toBe('\uFFFDok\n');
  });
  test('invalid bytes become replacement characters, never a crash', () => {
    expect(textOf([Buffer.from([0x61, 0xff, 0x62, 0x0a])])).toBe('a\uFFFDb\n');
  });
});

describe('every configured secret value is redacted', () => {
  test('values of 6 characters or more, wherever they are', () => {
    const secrets = ['hunter2hunter2', 'zz9-plural-z-alpha'];
    expect(textOf(['using hunter2hunter2 for zz9-plural-z-alpha; again hunter2hunter2\n'], { secrets })).toBe(
      'using [REDACTED] for [REDACTED]; again [REDACTED]\n',
    );
  });
  test('empty and short values are ignored (they would redact ordinary words)', () => {
    expect(textOf(['cat dog added\n'], { secrets: ['', 'cat', 'added'] })).toBe('cat dog added\n');
  });
  test('a secret containing another is redacted whole', () => {
    expect(textOf(['key abcdef1234567890 end\n'], { secrets: ['abcdef', 'abcdef1234567890'] })).toBe('key [REDACTED] end\n');
  });
});

describe('each line is redacted by the shared sanitizer (@ars/sanitize), as run events are', () => {
  test.each([
    "fatal: unable to access 'https://x-access-token:v1.abcdefabcdef@github.com/acme/api.git/': 403",
    'curl -H "Authorization: Bearer abc.def-ghi" https://api',
    'export DB_PASSWORD="two words" GITHUB_TOKEN=abc123 env: API_KEY=x',
    `remote ghp_${'a'.repeat(36)} ok, id ASIAIOSFODNN7EXAMPLE`,
    `{"ghp_${'k'.repeat(36)}": "a token used as a key"}`,
    'input_tokens: 1234 AUTHOR=Jane path=/usr/bin if token == null',
  ])('%s', (line) => {
    expect(textOf([`${line}\n`])).toBe(`${redactSecrets(line)}\n`);
  });
});

describe('a PEM private key block becomes one [REDACTED] line', () => {
  test('its lines are swallowed until its END line', () => {
    const pem =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\nAAAAMwAAAAtzc2gtZWQyNTUxOQAAACD\n-----END OPENSSH PRIVATE KEY-----\n';
    expect(textOf(['before\n', pem, 'after\n'])).toBe('before\n[REDACTED]\nafter\n');
    expect(textOf(['{"key": "-----BEGIN RSA PRIVATE KEY-----\\nMIIEow\\n-----END RSA PRIVATE KEY-----\\n"}\n'])).toBe('{"key": "[REDACTED]\\n"}\n');
  });
});

describe('sanitization works on line boundaries: a secret split across two chunks is still redacted', () => {
  test('a configured secret split between chunks', () => {
    const secret = 'zz9-plural-z-alpha';
    const out = textOf(['token is zz9-plu', 'ral-z-alpha, done\n'], { secrets: [secret] });
    expect(out).toBe('token is [REDACTED], done\n');
    expect(textOf(byteByByte(`token is ${secret}\n`), { secrets: [secret] })).toBe('token is [REDACTED]\n');
  });
  test('an assignment, a Bearer token, a URL credential and a token shape split between chunks', () => {
    const line = `GITHUB_TOKEN=abc123 Bearer qwerty123 https://u:p4ss@host ghp_${'a'.repeat(36)}\n`;
    const expected = 'GITHUB_TOKEN=[REDACTED] Bearer [REDACTED] https://***@host [REDACTED]\n';
    for (let at = 1; at < line.length; at += 1) {
      expect({ at, text: textOf([line.slice(0, at), line.slice(at)]) }).toEqual({ at, text: expected });
    }
  });
});

describe('text() includes the unfinished last line, sanitized', () => {
  test('the pending part is shown, and kept pending until its newline', () => {
    const log = logOf(['step 1\n', 'building 42%']);
    expect(log.text()).toBe('step 1\nbuilding 42%');
    log.append(' done\n');
    expect(log.text()).toBe('step 1\nbuilding 42% done\n');
  });
  test('a pending secret is redacted; so is what may be the first part of one', () => {
    expect(textOf(['API_TOKEN=abc'])).toBe('API_TOKEN=[REDACTED]');
    expect(textOf(['using zz9-plu'], { secrets: ['zz9-plural-z-alpha'] })).toBe('using [REDACTED]');
    expect(textOf(['pushing ghp_abc'])).toBe('pushing [REDACTED]');
    expect(textOf(['cloning https://x-access-token:ghs'])).toBe('cloning https://***');
    const log = logOf(['using zz9-plu'], { secrets: ['zz9-plural-z-alpha'] });
    log.append('ral-z-alpha ok');
    expect(log.text()).toBe('using [REDACTED] ok');
  });
});

describe('the cap keeps the first part (up to 1/4) and the most recent rest, with one marker line between', () => {
  const lines = Array.from({ length: 200 }, (_, index) => `line ${String(index).padStart(3, '0')} of the install output\n`).join('');
  const check = (log: SandboxLog, capBytes: number): void => {
    const text = log.text();
    expect(bytes(text)).toBeLessThanOrEqual(capBytes);
    const markers = [...text.matchAll(MARKER)];
    expect(markers).toHaveLength(1);
    const marker = markers[0];
    if (!marker || marker.index === undefined) throw new Error('no marker');
    const first = text.slice(0, marker.index);
    const rest = text.slice(marker.index + marker[0].length + 1);
    expect(bytes(first)).toBeLessThanOrEqual(capBytes / 4);
    expect(bytes(first)).toBeGreaterThan(0);
    // Exactly the first and the most recent bytes, N = what is between them.
    expect(lines.startsWith(first)).toBe(true);
    expect(lines.endsWith(rest)).toBe(true);
    expect(Number(marker[1])).toBe(log.droppedBytes);
    expect(bytes(first) + log.droppedBytes + bytes(rest)).toBe(bytes(lines));
    // Nothing wasted: the rest fills the cap but for the marker line.
    expect(bytes(text)).toBeGreaterThan(capBytes - 4);
  };
  test.each([400, 1000, 4096])('cap %i, whole lines', (capBytes) => {
    check(logOf([lines], { capBytes }), capBytes);
    check(logOf(lines.match(/.{1,7}/gs) ?? [], { capBytes }), capBytes);
  });
  test('under the cap: everything, no marker', () => {
    const log = logOf(['a\n', 'b\n'], { capBytes: 64 });
    expect(log.text()).toBe('a\nb\n');
    expect(log.droppedBytes).toBe(0);
  });
  test('the unfinished line counts against the cap too', () => {
    const log = logOf([lines.slice(0, 300), 'x'.repeat(150)], { capBytes: 256 });
    const text = log.text();
    expect(bytes(text)).toBeLessThanOrEqual(256);
    expect(text.endsWith('x'.repeat(150))).toBe(true);
    expect(text).toMatch(MARKER);
  });
  test('a cap below 64 bytes cannot hold the marker and is refused', () => {
    expect(() => new SandboxLog({ capBytes: 63, secrets: [] })).toThrow(RangeError);
  });
});

describe('the cap never cuts inside a UTF-8 character', () => {
  const wide = Array.from({ length: 60 }, (_, index) => `${index} €€ 😀 é\n`).join('');
  // One line: the kept beginning cannot end at a line end, so it is cut inside the line.
  const oneLine = `${'€😀é'.repeat(60)}\n`;
  test.each(Array.from({ length: 40 }, (_, index) => 64 + index))('cap %i', (capBytes) => {
    for (const input of [wide, oneLine]) {
      for (const chunks of [[input], byteByByte(input)]) {
        const text = textOf(chunks, { capBytes });
        expect(text).not.toContain('\uFFFD');
        expect(bytes(text)).toBeLessThanOrEqual(capBytes);
        const marker = [...text.matchAll(MARKER)][0];
        if (!marker || marker.index === undefined) throw new Error('no marker');
        const first = text.slice(0, marker.index).replace(/\n$/, '');
        const rest = text.slice(marker.index + marker[0].length + 1);
        expect(input.startsWith(first)).toBe(true);
        expect(input.endsWith(rest)).toBe(true);
      }
    }
  });
});

describe('totalBytes counts everything appended (raw), droppedBytes what was omitted', () => {
  test('sanitization and control characters do not change totalBytes, nor count as dropped', () => {
    const chunks = ['TOKEN=abcdefghij\x1b[0m\n', Buffer.from('€ \r\n'), 'x\ry\n'];
    const log = logOf(chunks);
    expect(log.totalBytes).toBe(chunks.reduce((sum, chunk) => sum + (typeof chunk === 'string' ? bytes(chunk) : chunk.length), 0));
    expect(log.droppedBytes).toBe(0);
    expect(log.text()).toBe('TOKEN=[REDACTED]\n€ \ny\n');
  });
  test('over the cap, droppedBytes is the marker’s N', () => {
    const log = logOf(['a'.repeat(99) + '\n'.repeat(1), 'b'.repeat(499) + '\n'], { capBytes: 200 });
    expect(log.totalBytes).toBe(600);
    expect(log.droppedBytes).toBeGreaterThan(400);
    expect(log.text()).toContain(`[… ${log.droppedBytes} bytes omitted …]\n`);
  });
});

describe('control characters other than \\n and \\t are removed', () => {
  test('C0, DEL and C1 controls go; tabs stay; terminal escape sequences go whole', () => {
    expect(textOf(['a\x00b\x07c\td\x1b[31mred\x1b[0m\x7f\u0085e\x08\n'])).toBe('abc\tdrede\n');
    expect(textOf(['\x1b]0;window title\x07\x1b[2K\x1b[1Gnpm ok\n'])).toBe('npm ok\n');
  });
  test('a result that JSON carries as plain text', () => {
    const text = textOf(['\x1b[32m✔\x1b[39m built\x0c\x0b\x1a\n']);
    expect(JSON.stringify(text)).toBe('"✔ built\\n"');
  });
});

describe('\\r\\n becomes \\n', () => {
  test('also when \\r and \\n arrive in different chunks', () => {
    expect(textOf(['one\r\ntwo\r\n'])).toBe('one\ntwo\n');
    expect(textOf(['one\r', '\ntwo\r', '\r\n'])).toBe('one\ntwo\n');
  });
});

describe('a lone carriage return starts the line over', () => {
  test('only the text after the last \\r of a line is kept', () => {
    expect(textOf(['progress 10%\rprogress 50%\rprogress 100%\ndone\n'])).toBe('progress 100%\ndone\n');
    expect(textOf(['progress 10%\r', 'progress 5', '0%\r', 'progress 100%', '\n'])).toBe('progress 100%\n');
  });
  test('in the unfinished line too, and a redrawn line never accumulates', () => {
    const log = logOf(['fetch 1/3\rfetch 2/3']);
    expect(log.text()).toBe('fetch 2/3');
    for (let index = 0; index < 50_000; index += 1) log.append(`\rdownloading ${index} of 50000`);
    expect(log.text()).toBe('downloading 49999 of 50000');
  });
});

describe('a very long line without a newline stays bounded and no secret is cut', () => {
  // The line is kept in parts past a length; wherever the part boundary falls, nothing leaks.
  test.each(Array.from({ length: 12 }, (_, index) => index))('Bearer tokens, assignments and known values across a forced cut (filler %i)', (filler) => {
    const unit = `Authorization: Bearer abcdefgh12345678 PASSWORD: hunter2hunter2 k zz9-plural-z-alpha ${'w'.repeat(filler)} `;
    const log = new SandboxLog({ capBytes: 512 * 1024, secrets: ['zz9-plural-z-alpha'] });
    const line = unit.repeat(Math.ceil(120_000 / unit.length));
    for (let at = 0; at < line.length; at += 1000 + filler) log.append(line.slice(at, at + 1000 + filler));
    const text = log.text();
    expect(text).not.toMatch(/abcdefgh|12345678|hunter2|zz9|plural|alpha/);
    expect(text.split('Bearer [REDACTED] PASSWORD: [REDACTED] k [REDACTED]')).toHaveLength(line.length / unit.length + 1);
  });
  test('its cost does not grow with its length (a flush reads text() while it grows)', () => {
    // Work is counted, not timed: the characters the log hands the sanitizer, for 1 MB and for 8 MB
    // of one endless line read while it grows. Bounded work is the same per byte at both sizes.
    const readFor = (chunks: number): { read: number; log: SandboxLog } => {
      let read = 0;
      const log = new SandboxLog({
        capBytes: 64 * 1024,
        secrets: ['zz9-plural-z-alpha'],
        redactor: (text, options) => {
          read += text.length;
          return redactSecrets(text, options);
        },
      });
      const chunk = 'x'.repeat(4095) + ' ';
      for (let index = 0; index < chunks; index += 1) {
        log.append(chunk);
        if (index % 16 === 0) log.text();
      }
      return { read, log };
    };
    const small = readFor(256);
    const { read, log } = readFor(2048);
    expect(log.totalBytes).toBe(8 * 1024 * 1024);
    // Growing with the line would read about 8 times more per byte at 8 MB than at 1 MB.
    expect(read / log.totalBytes).toBeLessThan(1.25 * (small.read / small.log.totalBytes));
    expect(read).toBeLessThan(64 * log.totalBytes);
    expect(bytes(log.text())).toBeLessThanOrEqual(64 * 1024);
  });
});
