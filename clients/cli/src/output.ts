import { ArsApiError, type McpServerItem, type Run, type RunEvent } from './api.js';

/** README, "Exit codes". */
export const EXIT = {
  ok: 0,
  /** A followed run ended `failed`. */
  runFailed: 1,
  /** Any error: the service's answer, no connection, a refused login, a usage error. */
  error: 2,
  /** A followed run ended `cancelled`, or Ctrl-C stopped the command. */
  cancelled: 130,
} as const;

/** An error of the command line itself (no answer of the service behind it): HTTP status 0. */
export class CliError extends Error {
  readonly status = 0;
  readonly requestId = null;
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** `error <CODE> (HTTP <status>): <message> [request <id>]`, one line on stderr. */
export function errorLine(error: unknown): string {
  if (error instanceof ArsApiError || error instanceof CliError) {
    return `error ${error.code} (HTTP ${error.status}): ${error.message}${error.requestId ? ` [request ${error.requestId}]` : ''}`;
  }
  return `error INTERNAL (HTTP 0): ${(error as Error)?.message ?? String(error)}`;
}

export function printJson(data: unknown): void {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

/** Columns padded to their widest cell; `-` for null. */
export function printTable(headers: string[], rows: (string | number | boolean | null | undefined)[][]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cells = [headers, ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  for (const row of cells) process.stdout.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}\n`);
}

/** `key: value` lines, for one record. */
export function printFields(fields: object): void {
  const width = Math.max(...Object.keys(fields).map((k) => k.length));
  for (const [key, value] of Object.entries(fields)) {
    const shown = value === null || value === undefined ? '-' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    process.stdout.write(`${`${key}:`.padEnd(width + 2)}${shown}\n`);
  }
}

function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(11, 19);
}

/** One event as a line: time, type, the tool's name, the message (on one line). */
export function eventLine(event: RunEvent): string {
  const message = (event.message ?? '').replace(/\s*\n\s*/g, ' ⏎ ');
  return [clock(event.createdAt), event.type, event.toolName ?? '', message].filter((part) => part !== '').join('  ');
}

export function runSummaryLine(run: Run): string {
  return `run ${run.runId} ${run.status}${run.error ? `: ${run.error}` : ''}`;
}

export function exitCodeOf(run: Run): number {
  if (run.status === 'success') return EXIT.ok;
  if (run.status === 'cancelled') return EXIT.cancelled;
  return EXIT.runFailed;
}

const MASK = '••••';

function maskMap(value: unknown): unknown {
  return value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.keys(value).map((name) => [name, MASK])) : value;
}

function maskUrl(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    const url = new URL(value);
    if (url.password) url.password = MASK;
    for (const name of new Set(url.searchParams.keys())) url.searchParams.set(name, MASK);
    return url.href;
  } catch {
    return MASK;
  }
}

/**
 * A tool server as `ars mcp-servers` shows it, on the terminal and with --json alike: the names of
 * its environment variables and headers, never their values (they are credentials, and terminals
 * are logged, shared and screenshotted); a URL's password and query values likewise.
 */
export function maskedServer(server: McpServerItem): Omit<McpServerItem, 'config'> & { config: Record<string, unknown> } {
  const config: Record<string, unknown> = { ...server.config };
  if ('env' in config) config.env = maskMap(config.env);
  if ('http_headers' in config) config.http_headers = maskMap(config.http_headers);
  if ('headers' in config) config.headers = maskMap(config.headers);
  if ('url' in config) config.url = maskUrl(config.url);
  return { ...server, config };
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * How `ars run --follow` and `ars runs events --follow` show a run: every event as a line; on a
 * terminal also a progress line under them (spinner, status, events so far, time), redrawn in place.
 */
export class RunProgress {
  private status = 'pending';
  private count = 0;
  private frame = 0;
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly runId: string,
    private readonly tty: boolean = process.stdout.isTTY === true,
  ) {
    if (this.tty) this.timer = setInterval(() => this.draw(), 100);
  }

  event(event: RunEvent): void {
    this.count++;
    this.clear();
    process.stdout.write(`${eventLine(event)}\n`);
    this.draw();
  }

  run(run: Run): void {
    this.status = run.status;
    this.draw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.clear();
  }

  private clear(): void {
    if (this.tty) process.stdout.write('\r\x1b[2K');
  }

  private draw(): void {
    if (!this.tty) return;
    this.frame = (this.frame + 1) % SPINNER.length;
    const seconds = Math.round((Date.now() - this.started) / 1000);
    process.stdout.write(`\r\x1b[2K${SPINNER[this.frame]} ${this.runId} ${this.status} · ${this.count} events · ${seconds}s`);
  }
}
