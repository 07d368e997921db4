// The `ars` command line as a user runs it: the built `clients/cli/dist/main.js` as a child process
// (`npm run build` first), with its own config directory, and a headless Chromium (Debian's
// `chromium`, driven by puppeteer-core) as the user's browser for the login's consent page.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type BrowserContext } from 'puppeteer-core';

export const CLI_MAIN = fileURLToPath(new URL('../../clients/cli/dist/main.js', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh, private config directory (ARS_CONFIG_DIR) for one user of the CLI. */
export function cliConfigDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'ars-cli-test-')), 'ars');
}

/** The environment of a CLI process: no ARS_* of the machine running the tests, only those given. */
function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ARS_') && name !== 'XDG_CONFIG_HOME'));
  return { ...base, ...env };
}

/** A CLI process under way: its output so far, and its end. */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<CliResult>;
  private readonly child: ChildProcess;

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [CLI_MAIN, ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString('utf8')));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve({ code, stdout: this.stdout, stderr: this.stderr })));
  }

  /** The first output line (stderr) matching `pattern`, once printed; fails when the process ends first. */
  async line(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void this.exited.then(() => (ended = true));
    for (;;) {
      const match = pattern.exec(this.stderr);
      if (match) return match;
      if (ended) throw new Error(`the CLI ended without printing ${pattern}: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`the CLI printed no ${pattern} within ${timeoutMs} ms: ${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

/** Fails with the CLI's output unless it exited with `code`. */
export function expectExit(result: CliResult, code: number): void {
  if (result.code !== code) throw new Error(`ars exited ${result.code}, expected ${code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
}

export function startCli(args: string[], env: Record<string, string>): CliProcess {
  return new CliProcess(args, env);
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return startCli(args, env).exited;
}

/** `ars login --no-browser` under way, and the consent URL it printed. */
export async function startLogin(baseUrl: string, configDir: string, extra: string[] = []): Promise<{ cli: CliProcess; url: URL }> {
  const cli = startCli(['login', '--no-browser', '--base-url', baseUrl, '--timeout', '60', ...extra], { ARS_CONFIG_DIR: configDir });
  const [, url] = await cli.line(/^\s+(http:\S+\/cli\/login\?\S+)$/m);
  return { cli, url: new URL(url ?? '') };
}

/** Headless Chromium; as root (CI, this machine) without its sandbox, which needs an unprivileged user. */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
}

/** A private browser profile; signed in when given the account's `ars_session=…` cookie. */
export async function browserProfile(browser: Browser, baseUrl: string, sessionCookie?: string): Promise<BrowserContext> {
  const context = await browser.createBrowserContext();
  if (sessionCookie) {
    const [name = '', value = ''] = sessionCookie.split('=', 2);
    await context.setCookie({ name, value, domain: new URL(baseUrl).hostname, path: '/', httpOnly: true, sameSite: 'Lax' });
  }
  return context;
}
