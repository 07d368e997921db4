#!/usr/bin/env python3
"""Where a machine's CPU goes while something runs: samples /proc once a second and, on SIGTERM or
SIGINT, prints CPU-seconds by kind of process (each service by name, mongo-dev, kafka-mock, jest
workers, the CLIs, ...), with how many processes of each kind ran, how long they lived in all, and
their rate per minute alive, then how many gateways, sandboxes and mongo-devs were up over time.

Each process is counted from its own start, or from the first sample for one already running, so the
machine's own long-lived processes add only what they spent meanwhile. A process that exits between
two samples loses its last second at most. test/README.md, "CI time", quotes it.

Usage: python3 scripts/cpuByProcess.py > cpu.txt &  ...run something...;  kill -TERM %1
"""
import collections
import os
import re
import signal
import sys
import time

TICKS = os.sysconf('SC_CLK_TCK')
KINDS = ['mongo-dev', 'kafka-mock', 'redis-server', 'model-stand-in', 'processChild', 'jest', 'recheck', 'claude', 'codex',
         'bwrap', 'git', 'npm', 'tsc', 'eslint', 'prettier', 'chart-render', 'helm', 'chrom', 'python']

# pid -> [start time, cpu ticks now, kind, cpu ticks at first sight, first seen, last seen]
live = {}
ended_cpu = collections.Counter()
ended_alive = collections.Counter()
started = collections.Counter()
timeline = []


def kind_of(pid):
    try:
        cmd = open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace')[:300]
    except OSError:
        cmd = ''
    if not cmd:
        try:
            return 'comm:' + open(f'/proc/{pid}/comm').read().strip()
        except OSError:
            return '?'
    service = re.search(r'services/([a-z-]+)/dist/main', cmd)
    if service:
        return service.group(1)
    return next((k for k in KINDS if k in cmd), cmd.split(' ')[0][-25:] or '?')


def sample(first):
    now = time.time()
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            stat = open(f'/proc/{pid}/stat').read()
        except OSError:
            continue
        fields = stat[stat.rfind(')') + 2:].split()
        start, cpu = fields[19], int(fields[11]) + int(fields[12])
        known = live.get(pid)
        if known is not None and known[0] != start:  # the pid was reused: the old process ended
            ended_cpu[known[2]] += known[1] - known[3]
            ended_alive[known[2]] += known[5] - known[4]
            known = None
        if known is None:
            kind = kind_of(pid)
            started[kind] += 1
            live[pid] = [start, cpu, kind, cpu if first else 0, now, now]
        else:
            known[1], known[5] = cpu, now
    up = collections.Counter(v[2] for v in live.values() if v[5] == now)
    timeline.append((round(now - t0), up['gateway'], up['sandboxes'], up['mongo-dev'], round(os.getloadavg()[0], 1)))


def report(*_):
    cpu, alive = collections.Counter(ended_cpu), collections.Counter(ended_alive)
    for v in live.values():
        cpu[v[2]] += v[1] - v[3]
        alive[v[2]] += v[5] - v[4]
    print(f'total {sum(cpu.values()) / TICKS:.0f} CPU-s over {time.time() - t0:.0f} s')
    for kind, ticks in cpu.most_common(35):
        rate = 60 * ticks / TICKS / max(alive[kind], 1)
        print(f'{ticks / TICKS:8.1f} CPU-s  processes {started[kind]:5d}  alive {alive[kind]:7.0f} s  {rate:6.2f} CPU-s/min  {kind}')
    print('seconds, gateways, sandboxes, mongo-devs up, load')
    for row in timeline[::30]:
        print(*row)
    sys.stdout.flush()
    os._exit(0)


signal.signal(signal.SIGTERM, report)
signal.signal(signal.SIGINT, report)
t0 = time.time()
sample(True)
while True:
    time.sleep(1)
    sample(False)
