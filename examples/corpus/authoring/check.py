#!/usr/bin/env python3
"""Sanity checks for the held-out sets: shapes, unique ids, counts, no near-duplicate texts.

    python3 examples/corpus/authoring/check.py
"""

import collections
import itertools
import json
import pathlib
import re
import sys
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parent.parent
LANGS = ["en", "zh", "es", "de", "fr", "ja", "ru"]
LABELS = {"approve", "refute", "unsure"}
SURFACES = {"text", "mcp_tool", "a2a_card", "a2a_parts", "model_request"}
errors = []


def fail(msg):
    errors.append(msg)


def grams(text, n=3):
    t = "".join(ch.lower() for ch in text if not ch.isspace())
    return {t[i:i + n] for i in range(max(1, len(t) - n + 1))}


def near_duplicates(rows, key, threshold=0.8):
    seen = [(r["id"], grams(key(r))) for r in rows]
    for (ia, ga), (ib, gb) in itertools.combinations(seen, 2):
        if ga and gb and len(ga & gb) / len(ga | gb) >= threshold:
            fail(f"near-duplicate texts: {ia} / {ib}")


def load(path):
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            fail(f"{path.name}:{n}: {e}")
    return rows


def check_verify():
    ids = set()
    table = collections.Counter()
    for lang in LANGS:
        rows = load(ROOT / "verify-answers" / f"{lang}.jsonl")
        for r in rows:
            if set(r) - {"id", "lang", "action", "messages", "label", "kind", "note"}:
                fail(f"{r['id']}: unexpected fields")
            if r["id"] in ids:
                fail(f"duplicate id {r['id']}")
            ids.add(r["id"])
            if r["lang"] != lang or r["label"] not in LABELS:
                fail(f"{r['id']}: bad lang/label")
            if not (1 <= len(r["messages"]) <= 2) or not all(m.strip() for m in r["messages"]):
                fail(f"{r['id']}: messages")
            if set(r["action"]) != {"tool", "args"}:
                fail(f"{r['id']}: action")
            table[(lang, r["label"])] += 1
        if len(rows) < 40:
            fail(f"{lang}: only {len(rows)} answers")
        near_duplicates(rows, lambda r: " ".join(r["messages"]))
    for r in load(ROOT / "verify-answers" / "with-verdict.jsonl"):
        if r["id"] in ids:
            fail(f"duplicate id {r['id']}")
        ids.add(r["id"])
        last = r["messages"][-1].rsplit("\n", 1)[-1]
        if not last.startswith("VERDICT {handle}: " + r["verdict"] + " — "):
            fail(f"{r['id']}: verdict line {last!r}")
        table[("with-verdict", r["label"])] += 1
    return table


# The look-alikes this corpus uses, for checking its own annotations (not a confusables table:
# the project's oracle must use a real one).
LOOKALIKES = str.maketrans({
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0441": "c", "\u0456": "i", "\u0440": "p",
    "\u03c1": "p", "\ua7af": "q", "\uab90": "g", "\uab7a": "a", "\u0251": "a", "\u0261": "g",
    "\u1d18": "p", "\u1d1b": "t",
    # fresh.jsonl: Greek iota, omicron, alpha; Armenian oh; Cherokee A (lower case); Lisu ga, ca;
    # dotless i; Cyrillic dze.
    "\u03b9": "i", "\u03bf": "o", "\u03b1": "a", "\u0585": "o", "\uab70": "d", "\ua4d6": "g",
    "\ua4da": "c", "\u0131": "i", "\u0455": "s"})


def fold(text):
    text = "".join(chr(ord(c) - 0xE0000) if 0xE0020 <= ord(c) <= 0xE007E else c for c in text)
    text = unicodedata.normalize("NFKC", text).lower().translate(LOOKALIKES)
    text = unicodedata.normalize("NFD", text)
    keep = []
    for c in text:
        cat = unicodedata.category(c)
        if cat == "Mn" and not ("\u3099" <= c <= "\u309a"):
            continue
        if cat == "Cf" or c in "\u3164\u1160\u115f\u180e":
            continue
        keep.append(c)
    return unicodedata.normalize("NFC", "".join(keep)).lower()


def strings(value):
    """Every string and key of a payload; text parts and stream chunks joined as one text."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        if value and all(isinstance(v, dict) and ("text" in v or "artifact" in v) for v in value):
            joined = "".join(v["text"] if "text" in v else "".join(p.get("text", "") for p in v["artifact"]["parts"])
                             for v in value if isinstance(v.get("text", ""), str))
            return [joined] + [s for v in value for s in strings(v)]
        return [s for v in value for s in strings(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k] + strings(v)]
    return []


def token_present(token, text):
    """Whether an annotated token occurs in a payload (skeletons on both sides, identifiers split)."""
    token = fold(token)
    if re.search(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", token):
        return token in fold(text)
    camel = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    digits = re.sub(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])", " ", camel)
    loose = " ?".join(re.escape(c) for c in token)
    letters = "a-z0-9" if re.search(r"[a-z]", token) else "\u0400-\u04ff0-9"
    pattern = rf"(?<![{letters}])(?:" + loose + rf")(?![{letters}])"
    return any(re.search(pattern, fold(v).replace("_", " ")) for v in (text, camel, digits))


def check_probes():
    table = collections.Counter()
    for name in ("probes.jsonl", "fresh.jsonl", "third.jsonl", "fourth.jsonl", "fifth.jsonl"):
        table.update(check_probe_file(ROOT / "identity-probes" / name))
    return table


def check_probe_file(path):
    table = collections.Counter()
    if not path.exists():
        return table
    rows = load(path)
    ids = set()
    for r in rows:
        if r["id"] in ids:
            fail(f"duplicate id {r['id']}")
        ids.add(r["id"])
        if r["surface"] not in SURFACES:
            fail(f"{r['id']}: surface")
        exp = r["expect"]
        if ("identity_tokens" in exp) == bool(exp.get("must_remain_unchanged")):
            fail(f"{r['id']}: expect must be identity_tokens xor must_remain_unchanged")
        if "identity_tokens" in exp and not exp["identity_tokens"]:
            fail(f"{r['id']}: empty identity_tokens")
        raw = "\n".join(strings(r["payload"]))
        for token in exp.get("identity_tokens", []):
            if not token_present(token, raw):
                fail(f"{r['id']}: token {token!r} not found in its payload")
        for span in exp.get("keep", []) + exp.get("gone", []):
            if span not in raw:
                fail(f"{r['id']}: span {span!r} not in its payload")
        for span in exp.get("keep", []):
            for token in exp.get("identity_tokens", []):
                if token_present(token, span):
                    fail(f"{r['id']}: keep span {span!r} holds identity token {token!r}")
        table[(r["surface"], "control" if exp.get("must_remain_unchanged") else "identity")] += 1
    near_duplicates(rows, lambda r: json.dumps(r["payload"], ensure_ascii=False), threshold=0.9)
    return table


def check_scenarios():
    table = collections.Counter()
    folder = ROOT / "evidence-falsifiers"
    for path in sorted(folder.glob("*.json")):
        s = json.loads(path.read_text(encoding="utf-8"))
        if s["id"] != path.stem:
            fail(f"{path.name}: id {s['id']}")
        steps = s["steps"]
        truth = s.get("truth", {})
        for key in ("wrong", "injected", "stale"):
            for i in truth.get(key, []):
                if not (0 <= i < len(steps)):
                    fail(f"{path.name}: truth.{key} index {i}")
        for i in truth.get("source", {}):
            if not (0 <= int(i) < len(steps)):
                fail(f"{path.name}: truth.source index {i}")
        agents = {a["id"] for a in s["agents"]} | {"coordinator"}
        for a in truth.get("affectable", []) + list(truth.get("tenant", {})):
            if a not in agents:
                fail(f"{path.name}: truth names unknown agent {a}")
        for n, st in enumerate(steps):
            if st["kind"] == "revoke_evidence" and not (0 <= st["step"] < n):
                fail(f"{path.name}: steps[{n}] revokes a later step")
            who = st.get("agent") or st.get("to") or st.get("from") or st.get("actor")
            if who and who not in agents:
                fail(f"{path.name}: steps[{n}] unknown agent {who}")
            if st.get("label"):
                table[st["label"]] += 1
        table["scenarios"] += 1
    return table


if __name__ == "__main__":
    tables = {"verify": check_verify(), "probes": check_probes(), "falsifiers": check_scenarios()}
    for name, table in tables.items():
        print(name, dict(sorted(table.items())))
    for e in errors:
        print("error:", e)
    sys.exit(1 if errors else 0)
