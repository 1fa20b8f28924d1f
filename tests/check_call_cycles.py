#!/usr/bin/python3
"""check_call_cycles.py - no two translation units of the library call each other, directly or round a loop.

    check_call_cycles.py NM OBJECT.o...

Reads every object file's defined and undefined global symbols with `NM` (nm --format=posix), draws an
edge a -> b when a uses a symbol b defines, and fails (exit 1) naming every strongly connected set of more
than one file, with one use per edge of it, so a refactoring that lets a method call back into the code that
calls it is caught. Exit 2 on bad arguments or when nm fails.
"""
import os
import subprocess
import sys


def symbols(nm, path):
    """(defined, used): the global symbols path defines and the ones it uses but does not define."""
    out = subprocess.run([nm, "--format=posix", path], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"check_call_cycles: {nm} {path} failed: {out.stderr.strip()}")
    defined, used = set(), set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, used


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: the sets of nodes that reach each other."""
    index, low, on_stack, stack, result, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(component)
    return result


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    nm, objects = argv[1], argv[2:]
    name = {path: os.path.basename(path).replace(".c.o", ".c").replace(".o", "") for path in objects}
    owner, uses = {}, {}
    for path in objects:
        defined, used = symbols(nm, path)
        for sym in defined:
            owner[sym] = name[path]
        uses[name[path]] = used
    graph = {unit: set() for unit in uses}
    via = {}
    for unit, used in uses.items():
        for sym in sorted(used):
            target = owner.get(sym)
            if target is not None and target != unit:
                graph[unit].add(target)
                via.setdefault((unit, target), sym)
    cycles = [sorted(c) for c in strongly_connected(graph) if len(c) > 1]
    if len(objects) < 2 or not any(graph.values()):
        print(f"check_call_cycles: only {len(objects)} objects and {sum(map(len, graph.values()))} edges: "
              "the object list or nm output is broken", file=sys.stderr)
        return 2
    for cycle in cycles:
        members = set(cycle)
        edges = [f"{a} -> {b} ({via[(a, b)]})" for a in cycle for b in sorted(graph[a]) if b in members]
        print(f"call cycle between {len(cycle)} files: {', '.join(cycle)}\n  " + "\n  ".join(edges))
    if cycles:
        return 1
    print(f"check_call_cycles: {len(objects)} files, {sum(map(len, graph.values()))} calls between files, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
