#!/usr/bin/env python3
"""Writes ../identity-probes/probes.jsonl from probes_text.py and probes_structured.py.

The lists are the corpus; this script only numbers them and gives each its surface and
expectation. Run from anywhere:
    python3 examples/corpus/authoring/build_probes.py
"""

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "identity-probes" / "probes.jsonl"


def probe(surface, kind, payload, tokens, keep=None, gone=None, note=None, lang=None):
    expect = {"identity_tokens": tokens}
    if keep:
        expect["keep"] = keep
    if gone:
        expect["gone"] = gone
    return entry(surface, kind, payload, expect, note, lang)


def control(surface, kind, payload, note=None):
    return entry(surface, kind, payload, {"must_remain_unchanged": True}, note, None)


def entry(surface, kind, payload, expect, note, lang):
    out = {"surface": surface, "kind": kind, "payload": payload, "expect": expect}
    if lang:
        out["lang"] = lang
    if note:
        out["note"] = note
    return out


def rows():
    import probes_structured as S
    import probes_text as T

    out = []
    for text, tokens in T.PLAIN:
        out.append(probe("text", "plain", text, tokens))
    for text, tokens in T.SNAPSHOTS:
        out.append(probe("text", "snapshot_id", text, tokens))
    for text, tokens in T.IDENTIFIERS:
        out.append(probe("text", "identifier", text, tokens))
    for kind, table in (("homoglyph", T.HOMOGLYPHS), ("combining_marks", T.COMBINING),
                        ("invisible", T.INVISIBLE), ("fullwidth", T.FULLWIDTH)):
        for text, tokens, how in table:
            out.append(probe("text", kind, text, tokens, note=how))
    for text, tokens, lang in T.TRANSLITERATIONS:
        out.append(probe("text", "transliteration", text, tokens, lang=lang))
    for text, tokens in T.TIERS:
        out.append(probe("text", "tier_word", text, tokens))
    for text, tokens, keep, gone in T.MIXED:
        out.append(probe("text", "mixed", text, tokens, keep=keep, gone=gone))
    for kind, text in T.CONTROLS:
        out.append(control("text", kind, text))
    for text in T.CODE_CONTROLS:
        out.append(control("text", "control_code", text))
    for surface, probes, controls in (("mcp_tool", S.MCP, S.MCP_CONTROLS), ("a2a_card", S.CARDS, S.CARD_CONTROLS),
                                      ("a2a_parts", S.PARTS, S.PARTS_CONTROLS),
                                      ("model_request", S.MODEL, S.MODEL_CONTROLS)):
        for kind, payload, tokens, keep in probes:
            out.append(probe(surface, kind, payload, tokens, keep=keep))
        for kind, payload in controls:
            out.append(control(surface, kind, payload))
    for n, row in enumerate(out, 1):
        row["id"] = f"ip-{n:04d}"
    return [{"id": r.pop("id"), **r} for r in out]


def main():
    OUT.parent.mkdir(exist_ok=True)
    data = rows()
    for r in data:
        tokens = r["expect"].get("identity_tokens", [])
        assert all(t == t.lower() for t in tokens), (r["id"], tokens)
    with open(OUT, "w", encoding="utf-8") as f:
        for r in data:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{OUT.relative_to(HERE.parent)}: {len(data)}")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
