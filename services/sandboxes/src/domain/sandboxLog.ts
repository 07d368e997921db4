// The stored text of one sandbox log (install_log, dev_log). The commands run the repository's code
// with provider keys and a clone token around, and the text is shown to the user: secrets are
// redacted before anything is kept, and a dev server that logs for hours must not grow a document
// past its cap. Logs are read as JSON strings, so terminal control sequences are removed.
import { StringDecoder } from 'node:string_decoder';
import { knownSecrets, REDACTED, redactSecrets, unfinishedTokenAt, type KnownSecrets } from '@ars/sanitize';

/** Below this a cap cannot hold the kept beginning and the omission marker. */
export const MIN_LOG_CAP_BYTES = 64;

export interface SandboxLogOptions {
  /** The most UTF-8 bytes `text()` ever returns. */
  capBytes: number;
  /** Exact values redacted wherever they appear (provider keys, a clone URL's token); short or empty ones are ignored. */
  secrets: readonly string[];
  /** The shared sanitizer unless given; a test wraps it to count the characters the log makes it read. */
  redactor?: typeof redactSecrets;
}

/**
 * A log fed chunk by chunk. Lines are sanitized when their newline arrives (a secret split between
 * two chunks is still whole when it is redacted); `text()` also shows the unfinished last line.
 */
export class SandboxLog {
  readonly #decoder = new StringDecoder('utf8');
  readonly #secrets: KnownSecrets;
  readonly #redactor: typeof redactSecrets;
  readonly #stored: CappedText;
  /** The raw text of the line that has no newline yet. */
  #pending = '';
  #totalBytes = 0;
  /** Lines still to swallow of a PEM private key block whose END line has not come. */
  #keyLinesLeft = 0;

  constructor(options: SandboxLogOptions) {
    if (!Number.isSafeInteger(options.capBytes) || options.capBytes < MIN_LOG_CAP_BYTES) {
      throw new RangeError(`capBytes must be an integer of at least ${MIN_LOG_CAP_BYTES}, got ${options.capBytes}`);
    }
    this.#stored = new CappedText(options.capBytes);
    this.#secrets = knownSecrets(options.secrets);
    this.#redactor = options.redactor ?? redactSecrets;
  }

  /** Raw bytes appended so far (before sanitization and the cap). */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Bytes of sanitized text left out of `text()` (the N of its marker line; 0 when nothing was). */
  get droppedBytes(): number {
    return this.#view().dropped;
  }

  append(chunk: Buffer | string): void {
    // A string goes through the decoder too: it may follow a Buffer that ended inside a character.
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (bytes.length === 0) return;
    this.#totalBytes += bytes.length;
    this.#pending += this.#decoder.write(bytes);

    const lastNewline = this.#pending.lastIndexOf('\n');
    if (lastNewline >= 0) {
      const complete = this.#pending.slice(0, lastNewline).split('\n');
      this.#pending = this.#pending.slice(lastNewline + 1);
      let out = '';
      for (const raw of complete) {
        const line = this.#completeLine(raw);
        if (line !== null) out += `${line}\n`;
      }
      this.#stored.push(out);
    }
    // A progress bar redraws one line forever: only what follows its last \r can ever be kept.
    this.#pending = afterLastCarriageReturn(this.#pending);
    if (this.#pending.length > MAX_PENDING_CHARS) this.#cutLongLine();
  }

  /** The log as stored: sanitized, at most `capBytes` UTF-8 bytes, the unfinished last line included. */
  text(): string {
    return this.#view().text;
  }

  #view(): { text: string; dropped: number } {
    const pending = this.#pendingText();
    if (pending === '') return this.#stored.render();
    // The unfinished line may still grow or be overwritten, so it is shown without being kept.
    const view = this.#stored.clone();
    view.push(pending);
    return view.render();
  }

  /** One line (or part of one) with every secret the sanitizer recognises redacted. */
  #redact(text: string): string {
    return this.#redactor(text, { knownSecrets: this.#secrets });
  }

  #completeLine(raw: string): string | null {
    const line = cleanLine(raw);
    if (this.#keyLinesLeft > 0) {
      this.#keyLinesLeft = PEM_END.test(line) ? 0 : this.#keyLinesLeft - 1;
      return null;
    }
    if (opensKeyBlock(line)) this.#keyLinesLeft = MAX_PEM_LINES;
    return this.#redact(line);
  }

  #pendingText(): string {
    if (this.#pending === '' || this.#keyLinesLeft > 0) return '';
    return redactUnfinished(this.#redact(cleanLine(this.#pending)), this.#secrets);
  }

  /**
   * A line without a newline for MAX_PENDING_CHARS (minified output, a binary on stdout) is kept in
   * two parts so memory and the cost of `text()` stay bounded. The cut is made where the text
   * around it sanitizes the same apart as together, so no secret is split between the parts.
   */
  #cutLongLine(): void {
    const at = safeCut(this.#pending, (text) => this.#redact(cleanLine(text)));
    const head = this.#pending.slice(0, at);
    this.#pending = this.#pending.slice(at);
    if (this.#keyLinesLeft === 0) this.#stored.push(this.#redact(cleanLine(head)));
  }
}

const MAX_PENDING_CHARS = 16 * 1024;
/** What stays pending after a cut: enough that a secret starting before the cut is seen whole. */
const KEPT_AFTER_CUT = 1024;
const CUT_WINDOW = 4096;
/** RSA 8192 keys are about 100 lines of PEM; a block whose END never comes must not hide the rest of the log. */
const MAX_PEM_LINES = 200;

function safeCut(text: string, sanitize: (text: string) => string): number {
  const latest = text.length - KEPT_AFTER_CUT;
  // Right after a blank: secrets hold none, so a blank is where a cut is most likely safe.
  let before = latest;
  for (let tries = 0; tries < 8; tries += 1) {
    const blank = Math.max(text.lastIndexOf(' ', before - 1), text.lastIndexOf('\t', before - 1));
    if (blank < text.length / 2) break;
    const at = blank + 1;
    // Secrets are short: a window around the cut shows whether one spans it, at a bounded cost.
    const from = Math.max(0, at - CUT_WINDOW);
    const to = Math.min(text.length, at + CUT_WINDOW);
    if (sanitize(text.slice(from, at)) + sanitize(text.slice(at, to)) === sanitize(text.slice(from, to))) return at;
    before = blank;
  }
  // Dense secrets everywhere: cut anyway, but never between the halves of a surrogate pair.
  const code = text.charCodeAt(latest - 1);
  return code >= 0xd800 && code <= 0xdbff ? latest - 1 : latest;
}

/** The part of an unfinished line a terminal would show: after its last \r (a trailing \r may be half of \r\n). */
function afterLastCarriageReturn(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0d) end -= 1;
  // A run of trailing \r means the same as one (`\r\r\n` is a line end) and must not pile up.
  const trailing = end < text.length ? '\r' : '';
  const body = text.slice(0, end);
  return body.slice(body.lastIndexOf('\r') + 1) + trailing;
}

// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const ANSI_ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * One line as it is kept: \r\n and trailing \r are a line end, a lone \r starts the line over,
 * terminal escape sequences (colours, cursor moves) and other control characters go; tabs stay.
 */
function cleanLine(raw: string): string {
  let end = raw.length;
  while (end > 0 && raw.charCodeAt(end - 1) === 0x0d) end -= 1;
  const line = raw.slice(raw.lastIndexOf('\r', end - 1) + 1, end);
  // Whole escape sequences first: removing only ESC would leave `[31m` in the text.
  return line.replace(ANSI_ESCAPE, '').replace(CONTROL, '');
}

const PEM_BEGIN = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/y;
const PEM_END = /-----END [A-Z ]{0,40}PRIVATE KEY-----/;

/** Whether the line's last `-----BEGIN` opens a private key block that does not end on it (the next lines are the key). */
function opensKeyBlock(line: string): boolean {
  const at = line.lastIndexOf('-----BEGIN ');
  if (at < 0) return false;
  PEM_BEGIN.lastIndex = at;
  return PEM_BEGIN.test(line) && !PEM_END.test(line.slice(at));
}

/** After `scheme://`: a user name and the start of a password, no `@` yet. */
const UNFINISHED_USER_PASSWORD = /^[^/@:]*:[^/@]*$/;
/** A shorter start of a known secret is too common a string to mean anything. */
const MIN_SECRET_PREFIX = 4;

/**
 * An unfinished line is shown before its end arrives, so its last characters may be the first
 * part of a secret that no rule can recognise yet: they are shown redacted.
 */
function redactUnfinished(text: string, secrets: KnownSecrets): string {
  // Only the last word can still be growing into a secret; looking at it alone keeps this linear.
  let start = text.length;
  while (start > 0 && !/\s/.test(text.charAt(start - 1))) start -= 1;
  let word = text.slice(start);
  const token = unfinishedTokenAt(word);
  if (token >= 0) word = `${word.slice(0, token)}${REDACTED}`;
  const scheme = word.lastIndexOf('://');
  if (scheme > 0 && /[a-z0-9+.-]/i.test(word.charAt(scheme - 1)) && UNFINISHED_USER_PASSWORD.test(word.slice(scheme + 3)))
    word = `${word.slice(0, scheme + 3)}***`;
  let out = text.slice(0, start) + word;
  for (const secret of secrets.values) {
    for (let length = Math.min(secret.length - 1, out.length); length >= MIN_SECRET_PREFIX; length -= 1) {
      if (out.endsWith(secret.slice(0, length))) {
        out = out.slice(0, out.length - length) + REDACTED;
        break;
      }
    }
  }
  return out;
}

/**
 * Text within a byte cap: the first quarter is kept, then the most recent rest, and between them
 * one marker line saying how many bytes were left out. Cuts fall on UTF-8 character boundaries.
 */
class CappedText {
  readonly #cap: number;
  readonly #headCap: number;
  #head = '';
  #headBytes = 0;
  #headOpen = true;
  /** UTF-8 bytes: dropping the oldest of a large piece is then a view, not a copy of it. */
  #tail: Buffer[] = [];
  #tailStart = 0;
  #tailBytes = 0;
  #dropped = 0;

  constructor(cap: number) {
    this.#cap = cap;
    this.#headCap = Math.floor(cap / 4);
  }

  /** Pieces are never modified in place, so a copy shares them. */
  clone(): CappedText {
    const copy = new CappedText(this.#cap);
    copy.#head = this.#head;
    copy.#headBytes = this.#headBytes;
    copy.#headOpen = this.#headOpen;
    copy.#tail = this.#tail.slice(this.#tailStart);
    copy.#tailBytes = this.#tailBytes;
    copy.#dropped = this.#dropped;
    return copy;
  }

  push(text: string): void {
    if (text === '') return;
    let rest = Buffer.from(text, 'utf8');
    if (this.#headOpen) {
      if (this.#headBytes + rest.length <= this.#headCap) {
        this.#head += text;
        this.#headBytes += rest.length;
        return;
      }
      const at = boundaryAtOrBefore(rest, this.#headCap - this.#headBytes);
      let head = Buffer.concat([Buffer.from(this.#head, 'utf8'), rest.subarray(0, at)]);
      rest = rest.subarray(at);
      // The marker reads best after a whole line, unless that would give up most of the beginning.
      const newline = head.lastIndexOf(0x0a);
      if (newline >= 0 && newline < head.length - 1 && newline + 1 > this.#headCap / 2) {
        rest = Buffer.concat([head.subarray(newline + 1), rest]);
        head = head.subarray(0, newline + 1);
      }
      this.#head = head.toString('utf8');
      this.#headBytes = head.length;
      this.#headOpen = false;
      if (rest.length === 0) return;
    }
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    this.#fit();
  }

  render(): { text: string; dropped: number } {
    // One piece from now on: renders come every flush, and clones then copy a single reference.
    const tail = Buffer.concat(this.#tail.slice(this.#tailStart), this.#tailBytes);
    this.#tail = tail.length === 0 ? [] : [tail];
    this.#tailStart = 0;
    const text = tail.toString('utf8');
    if (this.#dropped === 0) return { text: this.#head + text, dropped: 0 };
    return { text: `${this.#head}${this.#markerLine(this.#dropped)}${text}`, dropped: this.#dropped };
  }

  #markerLine(dropped: number): string {
    const separator = this.#head === '' || this.#head.endsWith('\n') ? '' : '\n';
    return `${separator}[… ${dropped} bytes omitted …]\n`;
  }

  #fit(): void {
    for (;;) {
      const marker = this.#dropped > 0 ? Buffer.byteLength(this.#markerLine(this.#dropped), 'utf8') : 0;
      const over = this.#headBytes + marker + this.#tailBytes - this.#cap;
      if (over <= 0 || this.#tailBytes === 0) return;
      // The first drop makes the marker appear (and a longer N may need a few bytes more): loop.
      this.#dropFront(over);
    }
  }

  /** Drops at least `bytes` of the oldest tail bytes (a few more to end on a character boundary). */
  #dropFront(bytes: number): void {
    let need = bytes;
    while (need > 0 && this.#tailStart < this.#tail.length) {
      const piece = this.#tail[this.#tailStart];
      if (!piece) break;
      const gone = piece.length <= need ? piece.length : boundaryAtOrAfter(piece, need);
      this.#tail[this.#tailStart] = piece.subarray(gone);
      if (gone === piece.length) this.#tailStart += 1;
      this.#dropped += gone;
      this.#tailBytes -= gone;
      need -= gone;
    }
    if (this.#tailStart > 64 && this.#tailStart * 2 > this.#tail.length) {
      this.#tail = this.#tail.slice(this.#tailStart);
      this.#tailStart = 0;
    }
  }
}

const isContinuationByte = (bytes: Buffer, index: number): boolean => ((bytes[index] ?? 0) & 0xc0) === 0x80;

/** The largest character boundary at or before `index`. */
function boundaryAtOrBefore(bytes: Buffer, index: number): number {
  let at = Math.min(Math.max(0, index), bytes.length);
  while (at > 0 && isContinuationByte(bytes, at)) at -= 1;
  return at;
}

/** The smallest character boundary at or after `index`. */
function boundaryAtOrAfter(bytes: Buffer, index: number): number {
  let at = Math.min(Math.max(0, index), bytes.length);
  while (at < bytes.length && isContinuationByte(bytes, at)) at += 1;
  return at;
}
