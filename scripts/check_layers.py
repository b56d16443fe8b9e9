#!/usr/bin/env python3
"""Checks the #include lines of ddplab's sources against scripts/layers.txt.

    scripts/check_layers.py [SOURCE_ROOT]

A file may include a header of its own folder, or of a folder that its folder
lies above (directly or through others). It may not include another folder's
*_internal.h, and headers may not include each other in a cycle. Every breach
is printed as FILE:LINE: message; the exit status is 1 when there is one.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_rules(root):
    below = {}
    with open(os.path.join(root, 'scripts', 'layers.txt')) as f:
        for n, line in enumerate(f, 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            if words[0] in below:
                sys.exit(f'scripts/layers.txt:{n}: {words[0]} is named twice')
            for w in words[1:]:
                if w not in below:
                    sys.exit(f'scripts/layers.txt:{n}: {w} is not named above {words[0]}')
            below[words[0]] = words[1:]
    # what each folder may reach: the closure of "directly below"
    reach = {}
    for folder in below:  # lines come bottom up, so each reach is complete
        r = set()
        for b in below[folder]:
            r.add(b)
            r |= reach[b]
        reach[folder] = r
    return reach


def sources(root, folders):
    for folder in folders:
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(('.c', '.h', '.cu')):
                yield folder, name


def resolve(root, folder, inc, by_name):
    """The folder of the header `inc` included from `folder`, or None (not ours)."""
    for base in (folder, 'sim', 'cli', ''):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, p)):
            return os.path.dirname(p), p
    hits = by_name.get(os.path.basename(inc), [])
    if len(hits) == 1:
        return hits[0], os.path.join(hits[0], os.path.basename(inc))
    return None, None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    reach = read_rules(root)
    files = list(sources(root, reach))
    by_name = {}
    for folder, name in files:
        if name.endswith('.h'):
            by_name.setdefault(name, []).append(folder)
    breaches = []
    graph = {}  # header path -> headers it includes
    for folder, name in files:
        path = os.path.join(folder, name)
        with open(os.path.join(root, path), errors='replace') as f:
            lines = f.readlines()
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target, tpath = resolve(root, folder, m.group(1), by_name)
            if target is None or target not in reach:
                continue
            where = f'{path}:{n}'
            if name.endswith('.h'):
                graph.setdefault(path, []).append((tpath, where))
            if target == folder:
                continue
            if os.path.basename(tpath).endswith('_internal.h'):
                breaches.append(f'{where}: includes {tpath}, another folder\'s internal header')
            elif target not in reach[folder]:
                breaches.append(f'{where}: includes {tpath}, but {target}/ is not below '
                                f'{folder}/ (scripts/layers.txt)')
    # header cycles: a depth-first search that reports each cycle once
    state = {}

    def visit(h, stack):
        state[h] = 1
        stack.append(h)
        for t, where in graph.get(h, []):
            if state.get(t) == 1:
                cyc = stack[stack.index(t):] + [t]
                breaches.append(f'{where}: include cycle: ' + ' -> '.join(cyc))
            elif t not in state:
                visit(t, stack)
        stack.pop()
        state[h] = 2

    for h in sorted(graph):
        if h not in state:
            visit(h, [])
    for b in breaches:
        print(b)
    print(f'check_layers: {len(files)} files in {len(reach)} folders, '
          f'{len(breaches)} breach{"es" if len(breaches) != 1 else ""}')
    return 1 if breaches else 0


if __name__ == '__main__':
    sys.exit(main())
