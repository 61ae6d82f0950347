#!/usr/bin/env python3
"""Import cycles in the workspace's Rust code, between files and between sibling modules.

An edge runs from file A to file B when A names an item that B defines (through a
`use`, or a path written in the code); re-exports are followed to the file that
defines the item, so `use crate::Context` depends on `context.rs`, not on `lib.rs`.
Naming a module alone is no edge: only what is used from it. Test code (`mod tests`
files and `#[cfg(test)]` blocks) is left out: tests may look back at what they test.

Two checks, each over every crate of the workspace (libraries, binaries, tests,
examples, benches):

- files: no cycle in the file graph;
- sibling modules: collapse each module to its subtree; no cycle among the children
  of any one module (a parent and its child are the file check's business).

Exits 1 listing every cycle found, 0 when there is none.

    python3 .ci/cycles.py [ROOT]          # the workspace at ROOT (default: the repo)
    python3 .ci/cycles.py --self-test     # shows that a cycle added on purpose is caught
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ITEM_KINDS = r"(?:fn|struct|enum|trait|type|const|static|union|mod)"
ITEM_RE = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+|unsafe\s+|const\s+|extern\s+\"[^\"]*\"\s+)*"
    + ITEM_KINDS
    + r"\s+(r#)?([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
MACRO_RE = re.compile(r"macro_rules!\s*([A-Za-z_][A-Za-z0-9_]*)")
MOD_DECL_RE = re.compile(
    r"^\s*((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(r#)?([A-Za-z_][A-Za-z0-9_]*)\s*;",
    re.M,
)
INLINE_MOD_RE = re.compile(
    r"(?:^|(?<=[;{}\s]))(pub(?:\([^)]*\))?\s+)?mod\s+(?:r#)?([A-Za-z_][A-Za-z0-9_]*)\s*\{", re.M
)
USE_RE = re.compile(r"(?:^|[;{}\s])(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
PATH_RE = re.compile(r"(?<![A-Za-z0-9_:])((?:[A-Za-z_][A-Za-z0-9_]*::)+[A-Za-z_][A-Za-z0-9_]*)")


def strip_comments_and_strings(src: str) -> str:
    """Blanks comments, string and char literals (keeping line breaks and lengths)."""
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
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', src[i:i + 260]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', src[i:]).group(1)
            end = src.find('"' + hashes, i + len(hashes) + 2)
            j = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}'), not a lifetime ('a).
            m = re.match(r"'(?:\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'", src[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def block_end(src: str, open_brace: int) -> int:
    depth = 0
    for j in range(open_brace, len(src)):
        if src[j] == "{":
            depth += 1
        elif src[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(src)


def strip_test_code(src: str) -> str:
    """Blanks `#[cfg(test)]` items (inline test modules, test-only functions and uses)."""
    while True:
        m = re.search(r"#\[cfg\((?:test|all\([^()]*\btest\b[^()]*\))\)\]", src)
        if not m:
            return src
        start = m.start()
        # The item that follows: up to its `;` or the end of its `{ ... }` block.
        j = m.end()
        semi = src.find(";", j)
        brace = src.find("{", j)
        if brace >= 0 and (semi < 0 or brace < semi):
            end = block_end(src, brace)
        else:
            end = (semi + 1) if semi >= 0 else len(src)
        src = src[:start] + re.sub(r"[^\n]", " ", src[start:end]) + src[end:]


def expand_use(tree: str) -> list[tuple[list[str], str | None]]:
    """`a::{b, c::d as e, f::*}` into (path, alias) pairs; alias None for a glob."""
    tree = re.sub(r"\s+", "", tree)

    def split_top(s: str) -> list[str]:
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

    def walk(prefix: list[str], s: str) -> list[tuple[list[str], str | None]]:
        if not s:
            return []
        brace = s.find("{")
        if brace >= 0 and s.endswith("}"):
            head = [p for p in s[:brace].split("::") if p]
            out = []
            for part in split_top(s[brace + 1:-1]):
                out.extend(walk(prefix + head, part))
            return out
        segs = [p for p in s.split("::") if p]
        if segs and segs[-1] == "*":
            return [(prefix + segs[:-1], None)]
        if segs and segs[-1] == "self":
            segs = segs[:-1]
            path = prefix + segs
            return [(path, path[-1] if path else None)]
        path = prefix + segs
        if not path:
            return []
        alias = path[-1]
        return [(path, alias)]

    return walk([], tree)


USE_AS_RE = re.compile(r"\s+as\s+")


def parse_use_tree(tree: str) -> list[tuple[list[str], str | None]]:
    """Like expand_use, honouring `x as y` (rewritten to a marker before spaces go)."""
    marked = USE_AS_RE.sub(" @AS@", tree)
    pairs = []
    for path, alias in expand_use(marked.replace(" @AS@", "@AS@")):
        if path and "@AS@" in path[-1]:
            real, _, new = path[-1].partition("@AS@")
            path = path[:-1] + ([real] if real != "self" else [])
            alias = None if new == "_" else new
            if alias is None:
                # `use Trait as _`: a real dependency, with no name in scope.
                alias = "_"
        pairs.append((path, alias))
    return pairs


@dataclass
class Module:
    path: tuple[str, ...]
    file: Path
    children: dict[str, "Module"] = field(default_factory=dict)
    items: set[str] = field(default_factory=set)
    uses: dict[str, list[str]] = field(default_factory=dict)
    globs: list[list[str]] = field(default_factory=list)
    anon_uses: list[list[str]] = field(default_factory=list)
    # Names only re-exported (`pub use`, never named in the file's own code):
    # followed when resolving, but no dependency of the file itself.
    reexports: set[str] = field(default_factory=set)
    code: str = ""


class Crate:
    def __init__(self, root: Path):
        self.root = root
        self.modules: dict[tuple[str, ...], Module] = {}
        self.top = self.load(root, ())

    def load(self, file: Path, path: tuple[str, ...], src: str | None = None) -> Module:
        if src is None:
            raw = file.read_text(encoding="utf-8")
            src = strip_test_code(strip_comments_and_strings(raw))
        # Inline modules (`mod name { ... }`) are modules of their own in the
        # same file: their `super::` is this module, and their names are not
        # this module's.
        inline: list[tuple[str, str]] = []
        while (m := INLINE_MOD_RE.search(src)) is not None:
            brace = src.index("{", m.start())
            end = block_end(src, brace)
            inline.append((m.group(2), src[brace + 1:end - 1]))
            src = src[:m.start()] + re.sub(r"[^\n]", " ", src[m.start():end]) + src[end:]
        mod = Module(path, file, code=src)
        self.modules[path] = mod
        for name, body in inline:
            mod.children[name] = self.load(file, path + (name,), body)
        mod.items = {m.group(2) for m in ITEM_RE.finditer(src)} | set(MACRO_RE.findall(src))
        without_uses = USE_RE.sub(" ", src)
        for m in USE_RE.finditer(src):
            public = bool(m.group(1))
            for target, alias in parse_use_tree(m.group(2)):
                if alias is None:
                    mod.globs.append(target)
                elif alias == "_":
                    mod.anon_uses.append(target)
                else:
                    mod.uses[alias] = target
                    if public and not re.search(rf"(?<![A-Za-z0-9_]){alias}(?![A-Za-z0-9_])", without_uses):
                        mod.reexports.add(alias)
        # Paths written in the code; those of `use`s were read above.
        mod.code = without_uses
        # The directory a child module's file sits in: beside a mod.rs, lib.rs or
        # main.rs (or a crate root of its own), else in a folder named after the file.
        if any(m.file == file for m in self.modules.values() if m.path == path[:-1]) and path:
            return mod  # an inline module: its `mod x;` would be unusual, and is not followed
        if file.name in ("mod.rs", "lib.rs", "main.rs") or not path:
            folder = file.parent
        else:
            folder = file.parent / file.stem
        for m in MOD_DECL_RE.finditer(src):
            name = m.group(3)
            if name == "tests" or "cfg(test)" in m.group(1):
                continue
            for candidate in (folder / f"{name}.rs", folder / name / "mod.rs"):
                if candidate.exists():
                    mod.children[name] = self.load(candidate, path + (name,))
                    break
        return mod

    def resolve(self, start: Module, segs: list[str], depth: int = 0) -> Path | None:
        """The file that defines what `segs` names, read in `start`; None when outside."""
        if depth > 32 or not segs:
            return None
        first = segs[0]
        if first == "crate":
            return self.walk(self.top, segs[1:], depth)
        if first == "self":
            return self.walk(start, segs[1:], depth)
        if first == "super":
            mod = start
            while segs and segs[0] == "super":
                if not mod.path:
                    return None
                mod = self.modules[mod.path[:-1]]
                segs = segs[1:]
            return self.walk(mod, segs, depth)
        if first in start.children:
            return self.walk(start, segs, depth)
        if first in start.uses:
            return self.resolve(start, start.uses[first] + segs[1:], depth + 1)
        return None  # another crate (std, rmcp, ...), or a local name

    def walk(self, mod: Module, segs: list[str], depth: int) -> Path | None:
        if not segs:
            return None  # a module named alone
        name = segs[0]
        if name in mod.children:
            return self.walk(mod.children[name], segs[1:], depth)
        if name in mod.items:
            return mod.file
        if name in mod.uses:
            return self.resolve(mod, mod.uses[name] + segs[1:], depth + 1)
        for glob in mod.globs:
            target_mod = self.module_at(mod, glob)
            if target_mod is not None and (
                name in target_mod.items or name in target_mod.uses or name in target_mod.children
            ):
                return self.walk(target_mod, segs, depth + 1)
        return mod.file

    def module_at(self, start: Module, segs: list[str]) -> Module | None:
        if not segs:
            return start
        if segs[0] == "crate":
            mod, segs = self.top, segs[1:]
        elif segs[0] == "self":
            mod, segs = start, segs[1:]
        elif segs[0] == "super":
            mod = start
            while segs and segs[0] == "super":
                if not mod.path:
                    return None
                mod, segs = self.modules[mod.path[:-1]], segs[1:]
        elif segs[0] in start.children:
            mod = start
        else:
            return None
        for s in segs:
            if s not in mod.children:
                return None
            mod = mod.children[s]
        return mod

    def edges(self) -> dict[Path, dict[Path, str]]:
        """Each file's dependencies, each with the first path that makes it one."""
        graph: dict[Path, dict[Path, str]] = {m.file: {} for m in self.modules.values()}
        for mod in self.modules.values():
            targets: list[list[str]] = [
                path for alias, path in mod.uses.items() if alias not in mod.reexports
            ] + mod.anon_uses + mod.globs
            for m in PATH_RE.finditer(mod.code):
                targets.append(m.group(1).split("::"))
            for segs in targets:
                if segs in mod.globs:
                    target_mod = self.module_at(mod, segs)
                    target = None if target_mod is None else target_mod.file
                else:
                    target = self.resolve(mod, segs)
                if target is not None and target != mod.file:
                    graph[mod.file].setdefault(target, "::".join(segs) + ("::*" if segs in mod.globs else ""))
        return graph


def sccs(graph: dict) -> list[list]:
    """Tarjan's strongly connected components of more than one node."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
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
            if len(comp) > 1:
                out.append(sorted(comp, key=str))

    for v in sorted(graph, key=str):
        if v not in index:
            visit(v)
    return out


def one_cycle(graph: dict, comp: list) -> list:
    """A shortest cycle through the component's first node, to print."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, ()), key=str):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def crate_roots(workspace: Path) -> list[Path]:
    roots = []
    for manifest in sorted(workspace.rglob("Cargo.toml")):
        rel = manifest.relative_to(workspace)
        if any(part in ("target", "node_modules") or part.startswith(".") for part in rel.parts):
            continue
        pkg = manifest.parent
        for name in ("src/lib.rs", "src/main.rs", "build.rs"):
            if (pkg / name).exists():
                roots.append(pkg / name)
        for folder in ("src/bin", "tests", "examples", "benches"):
            d = pkg / folder
            if d.is_dir():
                roots.extend(sorted(d.glob("*.rs")))
                roots.extend(sorted(p for p in d.glob("*/main.rs")))
    return roots


@dataclass(frozen=True)
class Cycle:
    """One cycle: its members (files, or modules under `parent`) and how to print it."""

    key: str
    members: frozenset[str]
    message: str

    def __str__(self) -> str:
        return self.message


def check(workspace: Path) -> list[Cycle]:
    problems: list[Cycle] = []
    seen_files: set[Path] = set()
    for root in crate_roots(workspace):
        if root in seen_files:
            continue  # a module of another crate root (tests/common/mod.rs, say)
        crate = Crate(root)
        seen_files.update(m.file for m in crate.modules.values())
        graph = crate.edges()

        def rel(p: Path) -> str:
            return str(p.relative_to(workspace))

        for comp in sccs(graph):
            cycle = one_cycle(graph, comp)
            steps = " -> ".join(
                f"{rel(a)} ({graph[a][b]})" for a, b in zip(cycle, cycle[1:])
            )
            problems.append(Cycle(
                "files",
                frozenset(rel(p) for p in comp),
                f"file cycle ({len(comp)} files): {steps} -> {rel(cycle[0])}"
                + ("" if len(comp) == len(cycle) - 1 else f"; all: {', '.join(rel(p) for p in comp)}"),
            ))
        # A file is the module it is loaded as, not an inline module within it.
        file_module: dict[Path, tuple[str, ...]] = {}
        for m in crate.modules.values():
            if m.file not in file_module or len(m.path) < len(file_module[m.file]):
                file_module[m.file] = m.path
        for parent in crate.modules.values():
            if len(parent.children) < 2 or file_module[parent.file] != parent.path:
                continue
            depth = len(parent.path)
            sib: dict[str, set[str]] = {c: set() for c in parent.children}
            for src, dsts in graph.items():
                sp = file_module[src]
                if len(sp) <= depth or sp[:depth] != parent.path:
                    continue
                for dst in dsts:
                    dp = file_module[dst]
                    if len(dp) <= depth or dp[:depth] != parent.path:
                        continue
                    if sp[depth] != dp[depth]:
                        sib[sp[depth]].add(dp[depth])
            for comp in sccs(sib):
                cycle = one_cycle(sib, comp)
                where = "::".join(parent.path) or "crate root"
                problems.append(Cycle(
                    f"modules under {rel(parent.file)}",
                    frozenset(comp),
                    f"sibling-module cycle under {rel(parent.file)} ({where}): " + " -> ".join(cycle),
                ))
    return problems


def self_test() -> int:
    """A crate with a cycle put in on purpose is caught; the same crate without it is not."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "Cargo.toml").write_text('[package]\nname = "demo"\n')
        src = ws / "src"
        (src / "server").mkdir(parents=True)
        (src / "lib.rs").write_text("mod context;\nmod result;\npub mod server;\npub use context::Context;\n")
        (src / "result.rs").write_text("pub struct Output;\n")
        (src / "context.rs").write_text("use crate::result::Output;\npub struct Context(Output);\n")
        (src / "server" / "mod.rs").write_text("mod a;\nmod b;\n")
        (src / "server" / "a.rs").write_text("pub(crate) struct A;\n")
        (src / "server" / "b.rs").write_text("use super::a::A;\npub(crate) fn b(_: A) {}\n")
        clean = [str(c) for c in check(ws)]
        if clean:
            print("self-test: a crate without cycles was reported:", *clean, sep="\n  ")
            return 1
        # The cycle added on purpose: context.rs reaches into the server through
        # the crate root's re-export, and the server's `a` calls back into `b`.
        (src / "result.rs").write_text("pub struct Output(pub crate::Context);\n")
        (src / "server" / "a.rs").write_text(
            "pub(crate) struct A;\n#[allow(dead_code)]\nfn call() { super::b::b(A) }\n"
        )
        found = [str(c) for c in check(ws)]
        want = [
            "file cycle (2 files): src/context.rs (crate::result::Output) -> "
            "src/result.rs (crate::Context) -> src/context.rs",
            "file cycle (2 files): src/server/a.rs (super::b::b) -> "
            "src/server/b.rs (super::a::A) -> src/server/a.rs",
            "sibling-module cycle under src/lib.rs (crate root): context -> result -> context",
            "sibling-module cycle under src/server/mod.rs (server): a -> b -> a",
        ]
        if sorted(found) != sorted(want):
            print("self-test: expected", *want, "got", *found, sep="\n  ")
            return 1
    print("self-test: the cycles added on purpose were found, and nothing else")
    return 0


def main(argv: list[str]) -> int:
    if "--self-test" in argv:
        return self_test()
    args = [a for a in argv if not a.startswith("--")]
    workspace = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    problems = check(workspace)
    for c in problems:
        print(c)
    if problems:
        print(f"{len(problems)} import cycle(s): break them (after each file, in brackets, is what")
        print("it names of the next)")
        return 1
    print("no import cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
