#!/usr/bin/env python3
"""Writes ../verify-answers/*.jsonl from the per-language lists in verify/.

The lists are the corpus; this script only serialises them, numbers them and derives the
with-verdict variants (the same answers ending with a verdict line). Run from anywhere:
    python3 examples/corpus/authoring/build_verify.py
"""

import importlib
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "verify-answers"
LANGS = ["en", "zh", "es", "de", "fr", "ja", "ru"]

APPROVE = {"approve_negation", "approve_terse", "approve_chatty", "approve_technical", "approve_caveat", "approve_reasoned",
           "approve_passing_mention", "approve_markdown", "approve_code"}
REFUTE = {"refuse_direct", "refute_paraphrase", "refute_idiom", "refute_understatement", "refute_sarcasm",
          "refute_warning", "refute_split", "refute_mixed", "refute_code", "refute_markdown", "refute_alarm",
          "refute_question"}
UNSURE = {"other_action", "conditional", "hedge", "quoted_approval", "echo_proposer", "question_back",
          "deferral", "passing_mention"}
CONFLICT = {"verdict_contradicts_prose", "verdict_refuses_approving_prose"}
VERDICT_WORD = {"approve": "approve", "refute": "refuse", "unsure": "unsure"}


def label_of(kind):
    if kind in APPROVE:
        return "approve"
    if kind in REFUTE:
        return "refute"
    if kind in UNSURE:
        return "unsure"
    raise ValueError(f"unknown kind {kind}")


def record(rid, lang, actions, it, label, messages):
    tool, args = actions[it["action"]]
    out = {"id": rid, "lang": lang, "action": {"tool": tool, "args": args}, "messages": messages,
           "label": label, "kind": it["kind"]}
    if it["note"]:
        out["note"] = it["note"]
    return out


def with_verdict_line(messages, word, reason):
    line = f"VERDICT {{handle}}: {word} — {reason}"
    return messages[:-1] + [messages[-1] + "\n\n" + line]


def main():
    OUT.mkdir(exist_ok=True)
    verdict_rows = []
    for lang in LANGS:
        mod = importlib.import_module(f"verify.{lang}")
        assert mod.LANG == lang
        rows = []
        for n, it in enumerate(mod.ITEMS, 1):
            rid = f"va-{lang}-{n:03d}"
            label = label_of(it["kind"])
            rows.append(record(rid, lang, mod.ACTIONS, it, label, it["messages"]))
            if it["v"]:
                assert it["vw"] is None, rid
                word = VERDICT_WORD[label]
                row = record(rid + "-v", lang, mod.ACTIONS, it, label,
                             with_verdict_line(it["messages"], word, it["v"]))
                row["base_id"] = rid
                row["verdict"] = word
                verdict_rows.append(row)
        for n, it in enumerate(mod.VERDICT_CONFLICTS, 1):
            assert it["kind"] in CONFLICT and it["vw"] and it["v"], it
            rid = f"va-{lang}-c{n:02d}"
            row = record(rid, lang, mod.ACTIONS, it, "refute",
                         with_verdict_line(it["messages"], it["vw"], it["v"]))
            row["verdict"] = it["vw"]
            verdict_rows.append(row)
        write(OUT / f"{lang}.jsonl", rows)
    write(OUT / "with-verdict.jsonl", verdict_rows)


def write(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")
    print(f"{path.relative_to(HERE.parent)}: {len(rows)}")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
