#!/usr/bin/env python3
"""Layout checks for `make lint`: the daemon's tiers and module cycles, file and function sizes.

1. Tiers and cycles. The daemon (`sidecar/daemon/src`) is in tiers that depend downward:
   operator -> harnesses -> transports -> runtime -> config. Every `use crate::...`,
   `crate::...`, `super::...` and `self::...` path outside test code is resolved to the module
   file that defines (or re-exports) its target; an edge from a lower tier to a higher one is an
   error, and so is a cycle between sibling modules at any level of the tree (a module's own
   `mod.rs` is its facade and is not one of the siblings).
2. No non-test `.rs` file in the workspace over 500 lines (test files are exempt: `tests.rs`,
   files declared by `#[cfg(test)] mod name;`, `tests/` folders and the integration-test crate;
   a file's own inline test module counts, so a long one moves to a `tests.rs`).
3. No function outside tests over 120 lines (counted as clippy's `too_many_lines` counts: lines
   of the body holding code, blank and comment-only lines left out).

`--graph` prints the daemon's module edges instead. Exit status 1 when a check fails.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAEMON = ROOT / "sidecar/daemon/src"
TIERS = ["config", "runtime", "transports", "harnesses", "operator"]  # lowest first
MAX_FILE_LINES = 500
MAX_FN_LINES = 120

# Known offenders, each with why it is tolerated for now. An entry that no longer offends is an
# error too, so the list only shrinks.
FILE_ALLOWLIST = {
    # 473 lines of code and 97 of inline tests; the engine's text/ module is being edited on
    # other issues, so its tests move out to text/target/tests.rs once that work has landed.
    "sidecar/engine/src/text/target.rs": "inline tests to move to text/target/tests.rs",
}
FN_ALLOWLIST: dict[tuple[str, str], str] = {}
SKIP_DIRS = {"target", "node_modules", ".git", ".venv", "fuzz/corpus", "fuzz/artifacts"}


# ---------------------------------------------------------------------------------------------
# Source scanning: comments and literals blanked (newlines kept), test items removed.


def blank_literals(src: str) -> str:
    """Comments, strings and char literals replaced by spaces; line structure kept."""
    out = []
    i, n = 0, len(src)

    def keep_newlines(s: str) -> str:
        return re.sub(r"[^\n]", " ", s)

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
            out.append(keep_newlines(src[i:j]))
            i = j
        elif m := re.compile(r'b?r(#*)"').match(src, i):
            if i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_"):
                out.append(c)
                i += 1
                continue
            end = src.find('"' + m.group(1), m.end())
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append('"' + keep_newlines(src[i + 1 : end - 1]) + '"')
            i = end
        elif c == '"' or (c == "b" and src.startswith('b"', i) and not _ident_before(src, i)):
            j = i + (2 if c == "b" else 1)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append('"' + keep_newlines(src[i + 1 : j]) + '"')
            i = j + 1
        elif c == "'":
            m = re.compile(r"'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'").match(src, i)
            if m:
                out.append("' '")
                i = m.end()
            else:  # a lifetime or label
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _ident_before(src: str, i: int) -> bool:
    return i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_")


def match_brace(text: str, open_at: int) -> int:
    """Index just past the `}` closing the `{` at `open_at`."""
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


TEST_ATTR = re.compile(r"#\[cfg\((?:test|all\(test[^\]]*)\)\]")


def item_end(text: str, start: int) -> int:
    """End of the item starting at `start`: its `;` or its closing brace."""
    j = start
    while j < len(text):
        if text[j] == ";":
            return j + 1
        if text[j] == "{":
            return match_brace(text, j)
        j += 1
    return len(text)


def strip_tests(text: str) -> tuple[str, list[str]]:
    """Test items blanked out; also the names of `#[cfg(test)] mod name;` file modules."""
    test_mods = []
    out = text
    for m in reversed(list(TEST_ATTR.finditer(text))):
        end = item_end(text, m.end())
        item = text[m.end() : end]
        if mm := re.match(r"\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", item):
            test_mods.append(mm.group(1))
        out = out[: m.start()] + re.sub(r"[^\n]", " ", out[m.start() : end]) + out[end:]
    return out, test_mods


def code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


# ---------------------------------------------------------------------------------------------
# Workspace files.


def workspace_files() -> list[Path]:
    files = []
    for p in sorted(ROOT.rglob("*.rs")):
        rel = p.relative_to(ROOT).as_posix()
        if any(part in SKIP_DIRS for part in p.relative_to(ROOT).parts) or any(
            rel.startswith(d + "/") for d in SKIP_DIRS
        ):
            continue
        files.append(p)
    return files


def is_test_path(rel: str) -> bool:
    parts = rel.split("/")
    return (
        rel.startswith("integration-tests/")
        or "tests" in parts[:-1]
        or parts[-1] in ("tests.rs", "testkit.rs")
        or parts[-1].endswith("_tests.rs")
    )


class Source:
    def __init__(self, path: Path):
        self.path = path
        self.rel = path.relative_to(ROOT).as_posix()
        raw = path.read_text(encoding="utf-8")
        self.lines = raw.count("\n") + (0 if raw.endswith("\n") else 1)
        self.code, self.test_mods = strip_tests(blank_literals(raw))


def test_files(sources: dict[str, Source]) -> set[str]:
    """Files that are test code: by path, or declared by a `#[cfg(test)] mod name;`."""
    tests = {rel for rel in sources if is_test_path(rel)}
    for rel, s in sources.items():
        here = Path(rel)
        base = here.parent if here.name in ("mod.rs", "lib.rs", "main.rs") else here.with_suffix("")
        for name in s.test_mods:
            for cand in (base / f"{name}.rs", base / name / "mod.rs"):
                tests.add(cand.as_posix())
    return tests


# ---------------------------------------------------------------------------------------------
# Check 2 and 3: sizes.

FN_HEAD = re.compile(r"\bfn\s+([A-Za-z_]\w*)")


def long_functions(s: Source) -> list[tuple[str, int, int]]:
    """(name, line, body lines) of each function over the bound."""
    found = []
    text = s.code
    for m in FN_HEAD.finditer(text):
        # The body: the first `{` at bracket depth 0 after the signature, unless a `;` comes first.
        depth, j = 0, m.end()
        while j < len(text):
            c = text[j]
            if c in "([<":
                depth += 1
            elif c in ")]>" and depth:
                depth -= 1
            elif c == ";" and depth == 0:
                j = -1
                break
            elif c == "{" and depth == 0:
                break
            j += 1
        if j < 0 or j >= len(text):
            continue
        end = match_brace(text, j)
        body = text[j + 1 : end - 1]
        n = code_lines(body)
        if n > MAX_FN_LINES:
            found.append((m.group(1), text.count("\n", 0, m.start()) + 1, n))
    return found


def check_sizes(sources: dict[str, Source], tests: set[str]) -> list[str]:
    errors = []
    seen_files, seen_fns = set(), set()
    for rel, s in sources.items():
        if rel in tests:
            continue
        if s.lines > MAX_FILE_LINES:
            if rel in FILE_ALLOWLIST:
                seen_files.add(rel)
            else:
                errors.append(f"{rel}: {s.lines} lines (at most {MAX_FILE_LINES}; tests can move to a tests.rs)")
        for name, line, n in long_functions(s):
            if (rel, name) in FN_ALLOWLIST:
                seen_fns.add((rel, name))
            else:
                errors.append(f"{rel}:{line}: fn {name} has {n} lines (at most {MAX_FN_LINES})")
    for rel in FILE_ALLOWLIST.keys() - seen_files:
        errors.append(f"{rel}: on the file allowlist but within bounds now; take it off")
    for rel, name in FN_ALLOWLIST.keys() - seen_fns:
        errors.append(f"{rel}: fn {name} on the allowlist but within bounds now; take it off")
    return errors


# ---------------------------------------------------------------------------------------------
# Check 1: the daemon's module graph.


def module_of(rel_to_src: str) -> tuple[str, ...]:
    parts = rel_to_src[:-3].split("/")
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


USE_STMT = re.compile(r"\b(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
INLINE_PATH = re.compile(r"(?<![\w$:])((?:crate|super|self)(?:::(?:[A-Za-z_]\w*))+)")


def expand_use_tree(tree: str) -> list[tuple[list[str], str]]:
    """`a::{b, c::d as e, self}` -> [(path segments, bound name)]."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix: list[str], t: str):
        if t.startswith("::"):
            t = t[2:]
        if "{" in t and (t.find("{") < (t.find(",") if "," in t else len(t))):
            head, rest = t.split("{", 1)
            inner = rest[: rest.rfind("}")]
            head_segs = [x for x in head.split("::") if x]
            for part in split_top(inner):
                walk(prefix + head_segs, part)
            return
        if not t:
            return
        segs = prefix + [x for x in t.split("::") if x]
        if segs and segs[-1] == "self":  # `a::b::{self}` binds `b`
            segs = segs[:-1]
        if not segs:
            return
        out.append((segs, "*" if segs[-1] == "*" else segs[-1]))

    walk([], tree)
    return out


def split_top(s: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if cur:
        parts.append("".join(cur))
    return [p for p in parts if p]


def parse_uses(code: str) -> list[tuple[list[str], str]]:
    uses = []
    for m in USE_STMT.finditer(code):
        body = m.group(1)
        # `x as y`: keep the bound name, drop the rename before whitespace is removed.
        pairs = []
        for leaf in re.finditer(r"([\w:]+)\s+as\s+(\w+)", body):
            pairs.append((leaf.group(1), leaf.group(2)))
        stripped = re.sub(r"\s+as\s+\w+", "", body)
        expanded = expand_use_tree(stripped)
        renames = {p.split("::")[-1]: alias for p, alias in pairs}
        for segs, name in expanded:
            uses.append((segs, renames.get(name, name)))
    return uses


class Daemon:
    def __init__(self, sources: dict[str, Source], tests: set[str]):
        self.files = {}  # module path -> Source
        for rel, s in sources.items():
            if not rel.startswith("sidecar/daemon/src/") or rel in tests:
                continue
            sub = rel[len("sidecar/daemon/src/") :]
            if sub == "main.rs":
                continue
            self.files[module_of(sub)] = s
        self.uses = {m: parse_uses(s.code) for m, s in self.files.items()}
        self._import_tables: dict[tuple[str, ...], dict[str, tuple[str, ...] | None]] = {}

    def is_module(self, path: tuple[str, ...]) -> bool:
        return path in self.files

    def absolute(self, here: tuple[str, ...], segs: list[str]) -> tuple[str, ...] | None:
        """An absolute module path for `segs` as written in module `here`; None if external."""
        if not segs:
            return None
        head, rest = segs[0], segs[1:]
        if head == "crate":
            base = ()
        elif head == "self":
            base = here
        elif head == "super":
            base = here[:-1]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        elif self.is_module(here + (head,)):
            base, rest = here + (head,), rest
        elif head in self._imports(here):
            target = self._imports(here)[head]
            return None if target is None else target + tuple(rest)
        else:
            return None
        return base + tuple(rest)

    def _imports(self, here: tuple[str, ...]) -> dict[str, tuple[str, ...] | None]:
        """The names module `here` binds with `use`, to the absolute paths they stand for."""
        cache = self._import_tables
        if here not in cache:
            cache[here] = {}  # guards recursion
            table = {}
            for segs, name in self.uses.get(here, []):
                if name == "*" or segs[0] not in ("crate", "self", "super") and not self.is_module(
                    here + (segs[0],)
                ):
                    continue
                table[name] = self.absolute(here, segs)
            cache[here] = table
        return cache[here]

    def resolve(self, path: tuple[str, ...], depth: int = 0) -> tuple[str, ...]:
        """The module that defines the item at `path` (following `use` re-exports)."""
        k = len(path)
        while k > 0 and not self.is_module(path[:k]):
            k -= 1
        module, rest = path[:k], path[k:]
        if rest and depth < 16 and rest[0] in self._imports(module):
            target = self._imports(module)[rest[0]]
            if target is not None:
                return self.resolve(target + rest[1:], depth + 1)
        return module

    def edges(self) -> dict[tuple[str, ...], dict[tuple[str, ...], int]]:
        """module -> {module it uses -> line of the first use}."""
        out = defaultdict(dict)
        for here, s in self.files.items():
            code = s.code
            paths = []
            for m in USE_STMT.finditer(code):
                line = code.count("\n", 0, m.start()) + 1
                for segs, _ in parse_uses(m.group(0)):
                    paths.append((segs, line))
            no_use = USE_STMT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)
            for m in INLINE_PATH.finditer(no_use):
                paths.append((m.group(1).split("::"), no_use.count("\n", 0, m.start()) + 1))
            for segs, line in paths:
                if segs[-1] == "*":
                    segs = segs[:-1]
                absolute = self.absolute(here, segs)
                if absolute is None:
                    continue
                target = self.resolve(absolute)
                if target != here and target not in out[here]:
                    out[here][target] = line
        return out


def tier_rank(module: tuple[str, ...]) -> int | None:
    return TIERS.index(module[0]) if module and module[0] in TIERS else None


def sccs(nodes, succ):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
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
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def name(m: tuple[str, ...]) -> str:
    return "::".join(m) or "crate"


def check_daemon(d: Daemon) -> list[str]:
    errors = []
    edges = d.edges()
    for here, targets in sorted(edges.items()):
        for target, line in sorted(targets.items()):
            a, b = tier_rank(here), tier_rank(target)
            if a is not None and b is not None and b > a:
                errors.append(
                    f"{d.files[here].rel}:{line}: {name(here)} ({TIERS[a]}) uses {name(target)}"
                    f" ({TIERS[b]}), against the tier order {' -> '.join(reversed(TIERS))}"
                )
    # Cycles between siblings, at every level of the module tree.
    parents = {m[:-1] for m in d.files if m}
    for parent in sorted(parents):
        children = sorted({m[len(parent)] for m in d.files if len(m) > len(parent) and m[: len(parent)] == parent})
        succ, witness = defaultdict(set), {}
        for here, targets in edges.items():
            if len(here) <= len(parent) or here[: len(parent)] != parent:
                continue
            for target, line in targets.items():
                if len(target) <= len(parent) or target[: len(parent)] != parent:
                    continue
                a, b = here[len(parent)], target[len(parent)]
                if a != b:
                    succ[a].add(b)
                    witness.setdefault((a, b), (here, target, line))
        for comp in sccs(children, succ):
            if len(comp) < 2:
                continue
            comp = sorted(comp)
            lines = []
            for a in comp:
                for b in sorted(succ[a]):
                    if b in comp:
                        here, target, line = witness[(a, b)]
                        lines.append(f"    {d.files[here].rel}:{line}: {name(here)} -> {name(target)}")
            errors.append(
                f"cycle among {', '.join(name(parent + (c,)) for c in comp)}:\n" + "\n".join(lines)
            )
    return errors


def main() -> int:
    sources = {}
    for p in workspace_files():
        s = Source(p)
        sources[s.rel] = s
    tests = test_files(sources)
    daemon = Daemon(sources, tests)
    if "--graph" in sys.argv:
        for here, targets in sorted(daemon.edges().items()):
            for target in sorted(targets):
                print(f"{name(here)} -> {name(target)}")
        return 0
    errors = check_daemon(daemon) + check_sizes(sources, tests)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layout: {len(errors)} problem(s)", file=sys.stderr)
        return 1
    print(
        f"check_layout: {len(daemon.files)} daemon modules in tiers without cycles; "
        f"{len(sources) - len(tests)} non-test files within {MAX_FILE_LINES} lines and their "
        f"functions within {MAX_FN_LINES} (allowlisted: {len(FILE_ALLOWLIST)} files, "
        f"{len(FN_ALLOWLIST)} functions)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
