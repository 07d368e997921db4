#!/usr/bin/env python3
"""Every process a command starts, with the CPU and the page faults it spent: the kernel's own account
(BSD process accounting, acct(2)), which counts the processes that live a few milliseconds (git,
bwrap, mount, a shim) that a /proc sampler (scripts/cpuByProcess.py) misses between two looks.

Runs the command with accounting on, names each record from the command lines seen meanwhile (a
sampler of /proc every half second: a service by its dist/, mongo-dev, jest's workers...; a process
never seen keeps its kernel name, `git`, `bwrap`), and prints CPU-seconds, minor page faults and
process counts by kind, then which kinds start the most `git` and `bwrap` processes. Needs root (and
a kernel with CONFIG_BSD_PROCESS_ACCT); accounting is switched off when the command ends, however.
test/README.md, "CI time", quotes it.

Usage: sudo python3 scripts/processAccounting.py [--rows N] -- <command> [args...]
   or: python3 scripts/processAccounting.py --report <acct-file> <cmdlines-file>
"""
import collections
import ctypes
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

AHZ = 100.0  # acct(2) times are in AHZ ticks
RECORD = struct.Struct('<ccHIIIIIIf8H16s')  # struct acct_v3, 64 bytes
SPAWNED = ['git', 'bwrap']


def comp_t(value):
    """acct(2)'s 16-bit float: a 13-bit mantissa and a 3-bit base-8 exponent."""
    return (value & 0x1FFF) << (3 * (value >> 13))


def set_accounting(path):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.acct(path.encode() if path else None) != 0:
        raise OSError(ctypes.get_errno(), f'acct({path})')


def sample_command_lines(out, stop):
    boot = int(next(line.split()[1] for line in open('/proc/stat') if line.startswith('btime')))
    seen = set()
    with open(out, 'a') as f:
        while not stop.is_set():
            for pid in os.listdir('/proc'):
                if not pid.isdigit():
                    continue
                try:
                    start = int(open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[19])
                    if (pid, start) in seen:
                        continue
                    cmd = open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace')[:300]
                except OSError:
                    continue
                seen.add((pid, start))
                if cmd:
                    f.write(f'{pid}\t{boot + start // 100}\t{cmd}\n')
            f.flush()
            stop.wait(0.5)


def read_records(path):
    data = open(path, 'rb').read()
    for offset in range(0, len(data) - RECORD.size + 1, RECORD.size):
        f = RECORD.unpack_from(data, offset)
        yield {
            'pid': f[6], 'ppid': f[7], 'btime': f[8], 'etime': f[9] / AHZ,
            'cpu': (comp_t(f[10]) + comp_t(f[11])) / AHZ, 'minflt': comp_t(f[15]),
            'comm': f[18].split(b'\0')[0].decode(errors='replace'),
        }


def kind_namer(cmdlines_path):
    seen = collections.defaultdict(list)
    for line in open(cmdlines_path, errors='replace'):
        parts = line.rstrip('\n').split('\t', 2)
        if len(parts) == 3 and parts[0].isdigit():
            seen[int(parts[0])].append((int(parts[1]), parts[2]))

    def kind(record):
        cmds = [cmd for started, cmd in seen.get(record['pid'], []) if abs(started - record['btime']) <= 2]
        cmd = cmds[-1] if cmds else ''
        if 'jest-worker' in cmd:
            return 'jest worker'
        for pattern, name in [(r'services/([a-z-]+)/dist', 'service {}'), (r'services/([a-z-]+)/bin/([a-z-]+)', '{} {}'),
                              (r'deploy/local/([a-z-]+)/', '{}'), (r'node_modules/\.bin/([a-z-]+)', '{}')]:
            match = re.search(pattern, cmd)
            if match:
                return name.format(*match.groups())
        if 'jest' in cmd:
            return 'jest'
        return record['comm']

    return kind


def report(acct_path, cmdlines_path, rows):
    records = list(read_records(acct_path))
    kind = kind_namer(cmdlines_path)
    by_kind = collections.defaultdict(lambda: [0.0, 0, 0])
    for record in records:
        record['kind'] = kind(record)
        totals = by_kind[record['kind']]
        totals[0] += record['cpu']
        totals[1] += record['minflt']
        totals[2] += 1
    cpu = sum(t[0] for t in by_kind.values())
    print(f'{len(records)} processes ended, {cpu:.0f} CPU-s, {sum(t[1] for t in by_kind.values()) / 1e6:.1f} M minor page faults')
    print(f'{"CPU-s":>8} {"faults":>9} {"processes":>9}  kind')
    for name, (seconds, faults, count) in sorted(by_kind.items(), key=lambda item: -item[1][0])[:rows]:
        print(f'{seconds:8.1f} {faults / 1e6:8.2f}M {count:9d}  {name}')
    by_pid = collections.defaultdict(list)
    for record in records:
        by_pid[record['pid']].append(record)
    for spawned in SPAWNED:
        parents = collections.Counter()
        for record in records:
            if record['comm'] != spawned:
                continue
            alive = [p for p in by_pid.get(record['ppid'], []) if p['btime'] <= record['btime'] + 1 <= p['btime'] + p['etime'] + 3]
            parents[alive[0]['kind'] if alive else 'a process still running'] += 1
        print(f'{spawned} processes by parent: ' + ', '.join(f'{name} {count}' for name, count in parents.most_common(8)))


def main(argv):
    rows = 40
    if argv[:1] == ['--report']:
        report(argv[1], argv[2], rows)
        return 0
    if argv[:1] == ['--rows']:
        rows, argv = int(argv[1]), argv[2:]
    if argv[:1] == ['--']:
        argv = argv[1:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix='ars-acct-')
    acct_path, cmdlines_path = os.path.join(folder, 'acct'), os.path.join(folder, 'cmdlines')
    open(acct_path, 'wb').close()
    stop = threading.Event()
    sampler = threading.Thread(target=sample_command_lines, args=(cmdlines_path, stop), daemon=True)
    sampler.start()
    set_accounting(acct_path)
    # Stopped by a signal, accounting is still switched off (the finally below runs).
    for name in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(name, lambda number, _frame: sys.exit(128 + number))
    started = time.time()
    try:
        code = subprocess.call(argv)
    finally:
        set_accounting(None)
        stop.set()
        sampler.join()
    print(f'exit {code} in {time.time() - started:.0f} s; records in {folder}', file=sys.stderr)
    report(acct_path, cmdlines_path, rows)
    return code


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
