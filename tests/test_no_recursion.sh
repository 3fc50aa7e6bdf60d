#!/bin/sh
# No recursion in the library or the mbt command: a model deep enough to overflow the stack
# must not be able to crash them, so every walk over the tree is iterative.
# Each C file of src/ and tools/ is compiled again with GCC's -fcallgraph-info (at -O0, so that
# no call is inlined away); the direct calls of all files form one call graph, in which no
# function may reach itself. Calls through function pointers are not in the graph.
# First the check must find the recursion of a small example (f -> g -> f, and h -> h).
# Usage: test_no_recursion.sh SOURCE_DIR BUILD_DIR (BUILD_DIR/compile_commands.json)
set -eu
src=$1
build=$2
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/find_cycles.py" <<'EOF'
# Reads .ci files (VCG graphs of gcc -fcallgraph-info), prints each cycle of calls, exits 1 if any.
import re, sys

nodes, edges = {}, {}
for path in sys.argv[1:]:
    # Static functions are titled "file.c:name": qualified by the file's path, as two files of
    # the same name may each have a static function of the same name.
    def key(t):
        return path + "|" + t if ":" in t else t
    for line in open(path):
        m = re.match(r'node: \{ title: "([^"]+)" label: "([^"\\]+)\\n([^"]*)"', line)
        if m:
            if "shape" not in line:  # a definition, not an external declaration
                nodes[key(m.group(1))] = m.group(2) + " (" + m.group(3) + ")"
            continue
        m = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', line)
        if m:
            edges.setdefault(key(m.group(1)), set()).add(key(m.group(2)))

# Tarjan's strongly connected components, iteratively.
index, low, on_stack, stack, cycles, counter = {}, {}, set(), [], [], [0]
for root in sorted(nodes):
    if root in index:
        continue
    work = [(root, iter(sorted(edges.get(root, ()))))]
    index[root] = low[root] = counter[0]; counter[0] += 1
    stack.append(root); on_stack.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in nodes:
                continue  # a function of another library
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1
                stack.append(w); on_stack.add(w)
                work.append((w, iter(sorted(edges.get(w, ())))))
            elif w in on_stack:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop(); on_stack.discard(w); scc.append(w)
                if w == v:
                    break
            if len(scc) > 1 or v in edges.get(v, ()):
                cycles.append(sorted(nodes[f] for f in scc))
for c in cycles:
    print("recursion: " + " <-> ".join(c))
print("%d functions, %d calling, %d cycle(s)" % (len(nodes), len(edges), len(cycles)))
sys.exit(1 if cycles else 0)
EOF

# 1. The check finds recursion where there is some.
mkdir "$tmp/example"
cat > "$tmp/example/example.c" <<'EOF'
static int g(int n);
static int f(int n) { return n > 0 ? g(n - 1) : 0; }
static int g(int n) { return f(n) + 1; }
int h(int n) { return n > 0 ? h(n - 1) + f(n) : 0; }
EOF
(cd "$tmp/example" && gcc -O0 -fcallgraph-info -c example.c -o example.o)
if "$py" "$tmp/find_cycles.py" "$tmp/example/example.ci" > "$tmp/example.out"; then
  echo "FAIL: the check did not find the recursion of the example"; cat "$tmp/example.out"; exit 1
fi
grep -q "recursion: f (example.c:2:12) <-> g (example.c:3:12)" "$tmp/example.out" &&
  grep -q "recursion: h (example.c:4:5)" "$tmp/example.out" ||
  { echo "FAIL: the example's cycles were not reported as expected"; cat "$tmp/example.out"; exit 1; }

# 2. The library and the command.
cc_json=$build/compile_commands.json
[ -f "$cc_json" ] || { echo "FAIL: $cc_json is missing (CMAKE_EXPORT_COMPILE_COMMANDS)"; exit 1; }
"$py" - "$cc_json" "$src" "$tmp" > "$tmp/commands.sh" <<'EOF'
# One gcc command per C file of src/ and tools/, rewritten to write its call graph in tmp.
import json, os, re, shlex, sys
entries, src, tmp = json.load(open(sys.argv[1])), os.path.realpath(sys.argv[2]), sys.argv[3]
seen = set()
for e in entries:
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    rel = os.path.relpath(f, src)
    if not (rel.startswith("src/") or rel.startswith("tools/")) or not f.endswith(".c") or f in seen:
        continue
    seen.add(f)
    args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
    out, keep, skip = [], [], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if re.match(r"-O[0-9sgz]?$|-f(sanitize|profile|lto)|-flto", a):
            continue
        keep.append(a)
    obj = os.path.join(tmp, "ci", rel.replace("/", "__") + ".o")
    print("cd %s && gcc %s -O0 -fcallgraph-info -o %s" % (shlex.quote(e["directory"]),
          " ".join(shlex.quote(a) for a in keep), shlex.quote(obj)))
EOF
n=$(wc -l < "$tmp/commands.sh")
[ "$n" -gt 20 ] || { echo "FAIL: only $n C files of src/ and tools/ found in $cc_json"; exit 1; }
mkdir "$tmp/ci"
tr '\n' '\0' < "$tmp/commands.sh" | xargs -0 -n1 -P2 sh -c 'eval "$0" || exit 255'
"$py" "$tmp/find_cycles.py" "$tmp"/ci/*.ci || { echo "FAIL: recursion in the library or the command ($n files)"; exit 1; }
echo "no recursion in $n C files of src/ and tools/"
