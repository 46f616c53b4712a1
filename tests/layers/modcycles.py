#!/usr/bin/env python3
"""List module-level import edges per crate and report cycles between files.

Usage: modcycles.py REPO_ROOT [--edges]

A node is one source file (inline `mod x { }` blocks belong to their file).
An edge A -> B means code in A names an item defined in B, through a `use`
(private), `crate::`/`super::`/`self::` path, or a path that starts at a child
or imported module.  `mod x;` declarations and `pub use` / `pub(crate) use`
re-exports are not edges themselves: a path through a re-export is followed to
the file that defines the item.  So a parent mod.rs that only declares and
re-exports its children does not close a cycle with them.
"""
import os
import re
import sys
from collections import defaultdict

ITEM_RE = re.compile(
    r"\b(?:fn|struct|enum|trait|type|const|static|union|macro_rules!)\s+([A-Za-z_]\w*)")
MOD_DECL_RE = re.compile(r"\bmod\s+([A-Za-z_]\w*)\s*;")
INLINE_MOD_RE = re.compile(r"\bmod\s+([A-Za-z_]\w*)\s*\{")
USE_RE = re.compile(r"\b(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]*);")
PATH_RE = re.compile(r"(?<![\w:])([A-Za-z_]\w*)((?:\s*::\s*[A-Za-z_]\w*)+)")
MACRO_EXPORT_RE = re.compile(r"#\[macro_export\][^\n]*\n\s*macro_rules!\s*(\w+)")


def strip(src):
    """Blank out comments, strings and char literals, keeping offsets."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth += 1
                    j += 2
                elif src.startswith("*/", j):
                    depth -= 1
                    j += 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', src[i:]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'r(#*)"', src[i:])
            close = '"' + m.group(1)
            j = src.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            out.append('""' + re.sub(r"[^\n]", " ", src[i + 2:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
            out.append('""' + re.sub(r"[^\n]", " ", src[i + 2:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'", src[i:])
            if m:
                out.append("' '" + " " * (len(m.group(0)) - 3))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_use_tree(text, prefix):
    """Return (path list, alias or None, is_glob) for each leaf of a use tree."""
    text = re.sub(r"\s+as\s+", "@", text)
    text = re.sub(r"\s+", "", text)
    results = []

    def split_top(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            parts.append(cur)
        return parts

    def walk(s, pre):
        if not s:
            return
        brace = s.find("{")
        if brace >= 0:
            head = [p for p in s[:brace].split("::") if p]
            inner = s[brace + 1:s.rfind("}")]
            for part in split_top(inner):
                walk(part, pre + head)
            return
        if s.endswith("*"):
            results.append((pre + [p for p in s[:-1].split("::") if p], None, True))
            return
        alias = None
        if "@" in s:
            s, alias = s.split("@", 1)
        results.append((pre + [p for p in s.split("::") if p], alias, False))

    walk(text, list(prefix))
    return results


class Module:
    def __init__(self, path, file):
        self.path = path          # tuple of segments from crate root
        self.file = file
        self.children = {}        # name -> Module
        self.defs = set()
        self.imports = {}         # name -> (abs path tuple, is_pub)
        self.globs = []           # (abs path tuple, is_pub)


class Crate:
    def __init__(self, name, root_file):
        self.name = name
        self.root = Module((), root_file)
        self.modules = {(): self.root}
        self.file_text = {}
        self.refs = []  # (module, abs path tuple, kind)
        self.load(self.root, root_file, mod_rs=True)

    def child_file(self, file, mod_rs, name):
        d = os.path.dirname(file) if mod_rs else os.path.splitext(file)[0]
        for cand in (os.path.join(d, name + ".rs"), os.path.join(d, name, "mod.rs")):
            if os.path.exists(cand):
                return cand
        return None

    def load(self, module, file, mod_rs):
        src = strip(open(file).read())
        self.file_text[file] = src
        # Inline modules: spans
        spans = []
        for m in INLINE_MOD_RE.finditer(src):
            start = m.end() - 1
            depth, j = 0, start
            while j < len(src):
                if src[j] == "{":
                    depth += 1
                elif src[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            spans.append((m.start(), j, m.group(1)))

        def module_at(pos):
            # deepest inline module containing pos
            chain = [s for s in spans if s[0] < pos <= s[1]]
            chain.sort()
            mod = module
            for s in chain:
                mod = mod.children[s[2]]
            return mod

        for s in sorted(spans):
            parent = module_at(s[0])
            child = Module(parent.path + (s[2],), file)
            parent.children[s[2]] = child
            parent.defs.add(s[2])
            self.modules[child.path] = child
        for m in MOD_DECL_RE.finditer(src):
            parent = module_at(m.start())
            cf = self.child_file(file, mod_rs, m.group(1)) if parent is module else None
            if cf is None:
                continue
            child = Module(parent.path + (m.group(1),), cf)
            parent.children[m.group(1)] = child
            self.modules[child.path] = child
            self.load(child, cf, mod_rs=cf.endswith("mod.rs"))
        for m in ITEM_RE.finditer(src):
            module_at(m.start()).defs.add(m.group(1))
        for m in MACRO_EXPORT_RE.finditer(src):
            self.root.defs.add(m.group(1))
        use_spans = []
        pending_pub = []
        for m in USE_RE.finditer(src):
            mod = module_at(m.start())
            is_pub = bool(m.group(1))
            body = m.group(2)
            use_spans.append((m.start(), m.end()))
            for path, alias, glob in parse_use_tree(body, []):
                ab = self.absolutize(mod, path)
                if ab is None:
                    continue
                if glob:
                    mod.globs.append((ab, is_pub))
                    if not is_pub:
                        self.refs.append((mod, ab, "use*"))
                    continue
                if ab and ab[-1] == "self":
                    ab = ab[:-1]
                segs = ((ab[2],) + tuple(ab[3])) if ab and ab[0] == "@rel" else ab
                if segs and segs[-1] == "self":
                    segs = segs[:-1]
                name = alias or (segs[-1] if segs else None)
                if name and name != "_":
                    mod.imports[name] = (ab, is_pub)
                if not is_pub:
                    self.refs.append((mod, ab, "use"))
                elif name and name != "_":
                    pending_pub.append((mod, ab, name))
        code_outside_uses = src
        for a, b in use_spans:
            code_outside_uses = code_outside_uses[:a] + " " * (b - a) + code_outside_uses[b:]
        code_outside_uses = MOD_DECL_RE.sub(lambda m: " " * len(m.group(0)), code_outside_uses)
        for mod, ab, name in pending_pub:
            # A re-export the module's own code also uses is an edge too.
            if re.search(r"(?<![\w:])" + re.escape(name) + r"\b", code_outside_uses):
                self.refs.append((mod, ab, "pub-use-used"))
        # Paths in code
        def in_use(pos):
            return any(a <= pos < b for a, b in use_spans)
        for m in PATH_RE.finditer(src):
            if in_use(m.start()):
                continue
            first = m.group(1)
            rest = [p.strip() for p in m.group(2).split("::") if p.strip()]
            mod = module_at(m.start())
            if first in ("crate", "super", "self"):
                ab = self.absolutize(mod, [first] + rest)
                if ab is not None:
                    self.refs.append((mod, ab, "path"))
            else:
                self.refs.append((mod, ("@rel", mod.path, first, tuple(rest)), "relpath"))

    def absolutize(self, mod, path):
        if not path:
            return None
        base = list(mod.path)
        if path[0] == "crate":
            return tuple(path[1:])
        if path[0] in ("self", "super"):
            i = 0
            while i < len(path) and path[i] in ("self", "super"):
                if path[i] == "super":
                    base = base[:-1]
                i += 1
            return tuple(base + path[i:])
        # 2018: a leading name is a child module / local item, or an extern crate
        return ("@rel", tuple(mod.path), path[0], tuple(path[1:]))

    def resolve(self, ab, depth=0):
        """Return the Module defining the item named by abs path ab, or None."""
        if depth > 20 or ab is None:
            return None
        if ab and ab[0] == "@rel":
            _, mpath, first, rest = ab
            mod = self.modules.get(mpath)
            if mod is None:
                return None
            if first in mod.children:
                return self.resolve(mpath + (first,) + rest, depth + 1)
            if first in mod.imports:
                target = mod.imports[first][0]
                return self.resolve(self.concat(target, rest), depth + 1)
            return None  # extern crate or std
        mod = self.root
        segs = list(ab)
        while segs:
            s = segs[0]
            if s in mod.children:
                mod = mod.children[s]
                segs.pop(0)
                continue
            if s in mod.defs:
                return mod
            if s in mod.imports:
                target = mod.imports[s][0]
                return self.resolve(self.concat(target, tuple(segs[1:])), depth + 1)
            for g, _ in mod.globs:
                r = self.resolve(self.concat(g, tuple(segs)), depth + 1)
                if r is not None:
                    return r
            return mod
        return mod

    @staticmethod
    def concat(target, rest):
        if target and target[0] == "@rel":
            return target[:3] + (tuple(target[3]) + tuple(rest),)
        return tuple(target) + tuple(rest)

    def edges(self):
        out = defaultdict(set)
        self.why = defaultdict(set)
        for mod, ab, kind in self.refs:
            if kind == "relpath":
                _, mpath, first, rest = ab
                if first not in mod.children and not (
                        first in mod.imports and self.is_module(mod.imports[first][0])):
                    continue
            tgt = self.resolve(ab)
            if tgt is None or tgt.file == mod.file:
                continue
            out[mod.file].add(tgt.file)
            shown = "::".join(ab[3]) if ab and ab[0] == "@rel" else "::".join(ab)
            if ab and ab[0] == "@rel":
                shown = "::".join((ab[2],) + tuple(ab[3]))
            self.why[(mod.file, tgt.file)].add(shown)
        return out

    def is_module(self, ab):
        if ab and ab[0] == "@rel":
            _, mpath, first, rest = ab
            m = self.modules.get(mpath)
            if m and first in m.children:
                return self.is_module(mpath + (first,) + rest)
            return False
        return tuple(ab) in self.modules


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    nodes = set(graph) | {w for ws in graph.values() for w in ws}
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return out


def short_cycle(graph, comp):
    comp = set(comp)
    best = None
    for start in sorted(comp):
        # BFS shortest cycle through start
        prev = {start: None}
        frontier = [start]
        found = None
        while frontier and not found:
            nxt = []
            for v in frontier:
                for w in sorted(graph.get(v, ())):
                    if w not in comp:
                        continue
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found:
                    break
            frontier = nxt
        if found:
            path = [found]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])
            path.reverse()
            cyc = path + [start]
            if best is None or len(cyc) < len(best):
                best = cyc
    return best


def main():
    root = os.path.abspath(sys.argv[1])
    show_edges = "--edges" in sys.argv
    crates = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("target", ".git")]
        for f in files:
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, root)
            parts = rel.split(os.sep)
            if rel.endswith(("src/lib.rs", "src/main.rs")) and len(parts) == 3:
                crates.append((rel, p))
            elif len(parts) == 4 and parts[1] in ("tests", "benches") and f == "main.rs":
                crates.append((rel, p))
            elif len(parts) == 3 and parts[1] in ("tests", "benches") and f.endswith(".rs"):
                crates.append((rel, p))
    total = 0
    for rel, p in sorted(crates):
        c = Crate(rel, p)
        g = c.edges()
        base = os.path.dirname(p)
        name = lambda f: os.path.relpath(f, root)
        nedges = sum(len(v) for v in g.values())
        cycles = [comp for comp in sccs(g) if len(comp) > 1]
        print(f"== {rel}: {len(c.modules)} modules, {nedges} file edges, {len(cycles)} cycle group(s)")
        if show_edges:
            for a in sorted(g):
                for b in sorted(g[a]):
                    print(f"   {name(a)} -> {name(b)}")
        for comp in cycles:
            total += 1
            cyc = short_cycle(g, comp)
            print("   CYCLE GROUP: " + ", ".join(sorted(name(f) for f in comp)))
            print("     e.g. " + " -> ".join(name(f) for f in cyc))
            for a in sorted(comp):
                for b in sorted(g[a] & set(comp)):
                    why = sorted(c.why[(a, b)])
                    more = f" (+{len(why) - 4})" if len(why) > 4 else ""
                    print(f"       {name(a)} -> {name(b)}   [{', '.join(why[:4])}{more}]")
        # Sibling level: collapse each file to the subtree it sits in below
        # the deepest module both ends share (cli/, http/, server/...).
        file_path = {}
        for m in c.modules.values():
            if m.file not in file_path or len(m.path) < len(file_path[m.file]):
                file_path[m.file] = m.path
        sib = defaultdict(lambda: defaultdict(set))
        sib_why = defaultdict(set)
        for a, bs in g.items():
            for b in bs:
                pa, pb = file_path[a], file_path[b]
                k = 0
                while k < min(len(pa), len(pb)) and pa[k] == pb[k]:
                    k += 1
                if k < len(pa) and k < len(pb):
                    parent = pa[:k]
                    sib[parent][pa[k]].add(pb[k])
                    sib_why[(parent, pa[k], pb[k])].add(f"{name(a)} -> {name(b)}")
        for parent in sorted(sib):
            sg = sib[parent]
            for comp in sccs(sg):
                if len(comp) < 2:
                    continue
                total += 1
                where = "::".join(("crate",) + parent)
                cyc = short_cycle(sg, comp)
                print(f"   SIBLING CYCLE under {where}: " + " -> ".join(cyc))
                for x in sorted(comp):
                    for y in sorted(sg[x] & set(comp)):
                        print(f"       {x} -> {y}   via " + "; ".join(sorted(sib_why[(parent, x, y)])))
    print(f"total cycle groups: {total}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
