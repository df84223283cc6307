#!/usr/bin/env python3
"""Run two builds of dsh-agents on every carried store (testdata/stores and the
conformance stores beside the checkout) and compare exit status, stdout and
stderr byte for byte: tree (with and without filters, of the store and of
some sessions), check, and for up to 40 sessions of each store the
v2 and v1 listings (text and JSON), trace, usage and log. Each command runs on
a fresh copy of the store at one fixed path, so paths in the output match.
Usage: scripts/same-outputs.py OLD_BINARY NEW_BINARY
(both binaries must have the same file name, say in two directories, since
clap's usage lines name the binary)."""
import glob, json, os, shutil, subprocess, sys, tempfile

old, new = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
stores = sorted(set(glob.glob(here + '/testdata/stores/*')
                    + glob.glob(here + '/../shared/conformance/*/stores/*')))
work = tempfile.mkdtemp(prefix='dsh-same-')
runs = diffs = 0
# One model priced, the other not: both cost paths and the warning run.
prices = os.path.join(work, 'prices.json')
with open(prices, 'w') as f:
    json.dump({'mock/mock': {'input': 0.27, 'cacheRead': 0.07, 'output': 1.1}}, f)


def run(binary, store, args):
    copy = os.path.join(work, 's')
    shutil.rmtree(copy, ignore_errors=True)
    shutil.rmtree(os.path.join(work, 'c'), ignore_errors=True)
    shutil.copytree(store, copy, symlinks=True)
    env = dict(os.environ, DSH_AGENTS_CACHE_DIR=os.path.join(work, 'c'))
    r = subprocess.run([binary, '--store', copy] + args, capture_output=True, env=env, timeout=60)
    return r.returncode, r.stdout, r.stderr


try:
    for store in stores:
        if not os.path.isdir(store):
            continue
        ids = set()
        for log in glob.glob(store + '/*/*/session*.jsonl*'):
            try:
                with open(log, 'rb') as f:
                    ids.add(json.loads(f.readline())['id'])
            except (ValueError, KeyError, TypeError, OSError):
                pass
        commands = [['tree'], ['tree', '--json'], ['tree', '--all', '--width', '60'],
                    ['tree', '--live'], ['tree', '--problems'], ['tree', '--problems', '--json'],
                    ['tree', '--all', '--no-usage', '--width', '200'], ['check'], ['check', '--json'],
                    ['usage'], ['usage', '--json'], ['usage', '--by', 'model'],
                    ['usage', '--by', 'turn'], ['usage', '--by', 'turn', '--json'],
                    ['usage', '--prices', prices], ['usage', '--prices', prices, '--json']]
        for i in sorted(ids)[:40]:
            commands += [['list-agents', '--as', i], ['list-agents', '--as', i, '--json'],
                         ['--contract', 'v1', 'list-agents', '--as', i, '--scope', 'descendants'],
                         ['--contract', 'v1', 'list-agents', '--as', i, '--scope', 'children', '--json'],
                         ['trace', i], ['usage', i], ['log', i, '--last', '2'], ['log', i],
                         ['log', i, '--json'], ['log', i, '--full', '--reasoning']]
        for i in sorted(ids)[:5]:
            commands += [['tree', i], ['tree', i, '--json'], ['usage', i, '--tree'],
                         ['usage', i, '--tree', '--json'], ['usage', i, '--tree', '--prices', prices]]
        for c in commands:
            runs += 1
            a, b = run(old, store, c), run(new, store, c)
            if a != b:
                diffs += 1
                print('DIFFERENT', store, ' '.join(c), a[0], b[0])
finally:
    shutil.rmtree(work, ignore_errors=True)
print(runs, 'runs,', diffs, 'differences')
sys.exit(1 if diffs else 0)
