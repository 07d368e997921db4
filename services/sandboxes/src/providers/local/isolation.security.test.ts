import { bwrapArguments, type HostLayout, type IsolationSpec } from './isolation.js';
import { cliFiles } from './harnessCli.js';

const layout: HostLayout = {
  system: [
    { path: '/usr', directory: true },
    { path: '/bin', symlink: 'usr/bin' },
    { path: '/lib64', symlink: 'usr/lib64' },
    { path: '/opt/tools', directory: true },
  ],
  etcFromHost: ['/etc/ssl/certs', '/etc/nsswitch.conf'],
  etcGenerated: { hosts: '/run/ars/hosts', 'resolv.conf': '/run/ars/resolv.conf' },
  node: '/usr/bin/node',
};

const spec: IsolationSpec = {
  layout,
  sandboxDir: '/srv/sandboxes/local-1',
  cwd: '/srv/sandboxes/local-1/repo/app',
  readOnly: ['/work/project/services/sandboxes/bin/codex-standin.mjs', '/usr/lib/node_modules/cli'],
  command: ['/bin/sh', '-c', 'echo hi'],
};

/** The `--flag a b` triples of an argument list, as `flag a b` strings. */
function mounts(args: string[], flag: string): string[] {
  const found: string[] = [];
  args.forEach((arg, index) => {
    if (arg === flag) found.push(`${args[index + 1]} ${args[index + 2]}`);
  });
  return found;
}

describe('a sandbox command runs in namespaces of its own, without capabilities', () => {
  test('user, PID, IPC, UTS, mount and network namespaces; capabilities dropped; it dies with its parent in a session of its own', () => {
    const args = bwrapArguments(spec);
    expect(args).toEqual(expect.arrayContaining(['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session']));
    expect(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2)).toEqual(['--cap-drop', 'ALL']);
    expect(args).not.toContain('--share-net');
  });

  test('the command comes last, after `--`, untouched', () => {
    const args = bwrapArguments(spec);
    expect(args.slice(args.indexOf('--') + 1)).toEqual(['/bin/sh', '-c', 'echo hi']);
    expect(args.slice(args.indexOf('--chdir'), args.indexOf('--chdir') + 2)).toEqual(['--chdir', spec.cwd]);
  });
});

describe('only the sandbox directory is writable; the system, /etc files, node and the harness files are read-only', () => {
  test('the one writable bind is the sandbox directory, at the same path; /tmp is a private tmpfs', () => {
    const args = bwrapArguments(spec);
    expect(mounts(args, '--bind')).toEqual([`${spec.sandboxDir} ${spec.sandboxDir}`]);
    expect(args.slice(args.indexOf('--tmpfs'), args.indexOf('--tmpfs') + 2)).toEqual(['--tmpfs', '/tmp']);
  });

  test('system directories as the host has them: symlinks stay symlinks, directories are bound read-only', () => {
    const args = bwrapArguments(spec);
    expect(mounts(args, '--symlink')).toEqual(['usr/bin /bin', 'usr/lib64 /lib64']);
    expect(mounts(args, '--ro-bind')).toEqual(expect.arrayContaining(['/usr /usr', '/opt/tools /opt/tools']));
  });

  test('/etc holds only the listed host files and the generated ones', () => {
    const args = bwrapArguments(spec);
    expect(mounts(args, '--ro-bind-try')).toEqual(['/etc/ssl/certs /etc/ssl/certs', '/etc/nsswitch.conf /etc/nsswitch.conf']);
    expect(mounts(args, '--ro-bind')).toEqual(expect.arrayContaining(['/run/ars/hosts /etc/hosts', '/run/ars/resolv.conf /etc/resolv.conf']));
  });

  test('harness files are bound exactly, read-only; what lies under a bound system directory (node in /usr) is not bound again', () => {
    const binds = mounts(bwrapArguments(spec), '--ro-bind');
    expect(binds).toContain('/work/project/services/sandboxes/bin/codex-standin.mjs /work/project/services/sandboxes/bin/codex-standin.mjs');
    expect(binds).not.toContain('/usr/bin/node /usr/bin/node');
    expect(binds).not.toContain('/usr/lib/node_modules/cli /usr/lib/node_modules/cli');
    expect(binds.some((bind) => bind.startsWith('/work/project '))).toBe(false);
  });

  test('node outside the system directories is bound read-only at its path', () => {
    const binds = mounts(bwrapArguments({ ...spec, layout: { ...layout, node: '/opt/node/bin/node' } }), '--ro-bind');
    expect(binds).toContain('/opt/node/bin/node /opt/node/bin/node');
  });

  test('nothing else of the host: no bind of /, /root, /home or any directory above the sandbox', () => {
    const args = bwrapArguments(spec);
    const sources = [...mounts(args, '--bind'), ...mounts(args, '--ro-bind'), ...mounts(args, '--ro-bind-try')].map((bind) => bind.split(' ')[0] ?? '');
    for (const hidden of ['/', '/root', '/home', '/srv', '/srv/sandboxes', '/work', '/work/project']) expect(sources).not.toContain(hidden);
  });
});

describe('a sandbox has a network namespace of its own with nothing in it: no route out, whatever the command', () => {
  test('--unshare-all, never --share-net, nothing waits to attach a network; bwrap reports the pid on the info fd', () => {
    const args = bwrapArguments({ ...spec, infoFd: 3 });
    expect(args).toContain('--unshare-all');
    expect(args).not.toContain('--share-net');
    expect(args).not.toContain('--block-fd');
    expect(args.slice(args.indexOf('--info-fd'), args.indexOf('--info-fd') + 2)).toEqual(['--info-fd', '3']);
  });

  test('its doors are sockets bound at their own paths inside, and /tmp is on its disk when it has one', () => {
    const args = bwrapArguments({
      ...spec,
      sockets: [{ host: '/run/ars-host/egress/x.sock', inside: '/run/ars/egress.sock' }],
      tmpDir: '/srv/sandboxes/local-1/tmp',
    });
    expect(mounts(args, '--bind')).toEqual(
      expect.arrayContaining(['/run/ars-host/egress/x.sock /run/ars/egress.sock', '/srv/sandboxes/local-1/tmp /tmp', '/srv/sandboxes/local-1/tmp /var/tmp']),
    );
    expect(args.filter((arg, index) => arg === '--tmpfs' && args[index + 1] === '/tmp')).toEqual([]);
  });
});

describe('a harness CLI brings exactly its own files', () => {
  test('an npm-installed script: its node_modules (its dependencies are siblings)', () => {
    expect(cliFiles('/opt/app/node_modules/@openai/codex/bin/codex.js', true)).toBe('/opt/app/node_modules');
  });
  test('a binary of an npm package: that package only', () => {
    expect(cliFiles('/opt/app/node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude', false)).toBe(
      '/opt/app/node_modules/@anthropic-ai/claude-agent-sdk-linux-x64',
    );
    expect(cliFiles('/opt/app/node_modules/codex-bin/codex', false)).toBe('/opt/app/node_modules/codex-bin');
  });
  test('anything else: its own directory', () => {
    expect(cliFiles('/opt/codex/bin/codex', false)).toBe('/opt/codex/bin');
  });
});

describe('a read-only run: its working tree is bound read-only over the writable sandbox directory', () => {
  test('the tree’s read-only bind comes after the sandbox directory’s writable one (a later bind wins), the rest stays writable', () => {
    const args = bwrapArguments({ ...spec, readOnlyWithin: [spec.cwd] });
    expect(mounts(args, '--bind')).toEqual([`${spec.sandboxDir} ${spec.sandboxDir}`]);
    expect(mounts(args, '--ro-bind')).toContain(`${spec.cwd} ${spec.cwd}`);
    const writable = args.findIndex((arg, i) => arg === '--bind' && args[i + 1] === spec.sandboxDir);
    const tree = args.findIndex((arg, i) => arg === '--ro-bind' && args[i + 1] === spec.cwd);
    expect(tree).toBeGreaterThan(writable);
    expect(mounts(bwrapArguments(spec), '--ro-bind')).not.toContain(`${spec.cwd} ${spec.cwd}`);
  });
});
