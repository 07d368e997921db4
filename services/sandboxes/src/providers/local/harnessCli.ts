// The harness CLI as it runs inside an isolated sandbox: the argv that starts it and the host files
// it needs (bound read-only), for a stand-in, a configured CLI or the SDK's bundled one.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { HarnessName } from '../../harness/index.js';

export interface HarnessCli {
  command: string[];
  files: string[];
}

const NODE_SCRIPT = /\.(c|m)?js$/;

/**
 * How to start the harness's CLI in the sandbox (`executablePath` undefined: the SDK's bundled CLI):
 * a script under node, a binary as it is; bound with the files given (the settings'), else its package.
 */
export async function harnessCli(harness: HarnessName, executablePath: string | undefined, files?: string[]): Promise<HarnessCli> {
  const node = await realpath(process.execPath);
  const path = files && executablePath !== undefined ? executablePath : await realpath(executablePath ?? bundledCli(harness));
  const script = NODE_SCRIPT.test(path);
  return { command: script ? [node, path] : [path], files: files ?? [cliFiles(path, script)] };
}

/**
 * What of the host a CLI needs: an npm-installed script, its whole node_modules (its dependencies
 * and platform packages are siblings); a binary from an npm package, that package; otherwise the
 * CLI's own directory.
 */
export function cliFiles(path: string, script: boolean): string {
  const parts = path.split(sep);
  const index = parts.lastIndexOf('node_modules');
  if (index < 0) return dirname(path);
  if (script) return parts.slice(0, index + 1).join(sep);
  const scoped = parts[index + 1]?.startsWith('@') === true;
  return parts.slice(0, index + (scoped ? 3 : 2)).join(sep);
}

const CODEX_TRIPLES: Record<string, string> = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };

/** The SDK's own CLI (its platform package), as the SDK would find it. */
function bundledCli(harness: HarnessName): string {
  const require = createRequire(import.meta.url);
  const platform = `${process.platform}-${process.arch}`;
  try {
    if (harness === 'claude-code') {
      return join(dirname(require.resolve(`@anthropic-ai/claude-agent-sdk-${platform}/package.json`)), 'claude');
    }
    // As the SDK finds it (0.163): `vendor/<triple>/bin/codex`, or the older `vendor/<triple>/codex/codex`.
    const root = join(dirname(require.resolve(`@openai/codex-${platform}/package.json`)), 'vendor', CODEX_TRIPLES[process.arch] ?? '');
    const current = join(root, 'bin', 'codex');
    return existsSync(current) ? current : join(root, 'codex', 'codex');
  } catch {
    const variable = harness === 'codex' ? 'CODEX_PATH' : 'CLAUDE_CODE_PATH';
    throw new Error(`the SDK's bundled ${harness} CLI was not found for ${platform}: set ${variable} to the CLI's path`);
  }
}
