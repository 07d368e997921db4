// The CLI an isolated sandbox starts when the settings name none: the SDKs' bundled CLIs, found
// where the SDKs themselves find them, and bound with their whole package.
import { existsSync, statSync } from 'node:fs';
import { harnessCli } from './harnessCli.js';

describe('unset CODEX_PATH / CLAUDE_CODE_PATH: the SDKs’ bundled CLIs, bound with their package', () => {
  test.each(['codex', 'claude-code'] as const)('%s: the command is an executable file that exists, inside the one directory bound', async (harness) => {
    const cli = await harnessCli(harness, undefined);
    const [executable = ''] = cli.command;
    expect(existsSync(executable)).toBe(true);
    expect(statSync(executable).mode & 0o111).not.toBe(0);
    expect(cli.files).toHaveLength(1);
    expect(executable.startsWith(`${cli.files[0] ?? ''}/`)).toBe(true);
  });

  test('files given by the settings are bound as given, and a script runs under node', async () => {
    const cli = await harnessCli('codex', '/opt/stand-ins/bin/codex-standin.mjs', ['/opt/stand-ins']);
    expect(cli.command).toEqual([expect.stringMatching(/node$/), '/opt/stand-ins/bin/codex-standin.mjs']);
    expect(cli.files).toEqual(['/opt/stand-ins']);
  });
});
