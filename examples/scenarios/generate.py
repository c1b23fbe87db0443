#!/usr/bin/env python3
"""Writes the scenario corpus (SPEC §11) under examples/scenarios/.

Run: python3 examples/scenarios/generate.py   (rewrites trustfork/, defer/, verify/, evidence/, benign/ and grants/)

Each scenario is written from an attack description first — TrustFork's four attack types
crossed with how the risky agent's identity is displayed and what it wants, DEFER's channels
C1–C5 and attack paths, the evidence design's falsifiers with their ground truth, and benign
companions that look alarming — never from the engine's rules.
The script only keeps the shapes consistent; the content of each family rotates through
hand-written variants so no two scenarios read the same.
"""
import json
import pathlib
import shutil

from corpus_benign import benign_scenarios
from corpus_defer import defer_scenarios
from corpus_evidence import evidence_scenarios
from corpus_grants import grants_scenarios
from corpus_trustfork import trustfork_scenarios
from corpus_verify import verify_scenarios

HERE = pathlib.Path(__file__).resolve().parent


def with_verdicts(scenario):
    """A benign scenario's verifier answers the verification request Blindfold relays: its answer
    to a verify delegation about a proposal ends with the verdict for that proposal (SPEC §11
    `verdicts`), unless it refutes it. Attack scenarios keep their answers as written: a prose
    approval there is exactly what must not count."""
    if scenario["family"] != "benign":
        return scenario
    asked = {}
    for step in scenario["steps"]:
        if step["kind"] == "delegate":
            asked[step["to"]] = step.get("proposal") if step["intent"] == "verify" else None
        elif step["kind"] == "response" and asked.get(step["from"]):
            pid = asked.pop(step["from"])
            refutes = any(r["relation"] == "REFUTES" for r in step.get("relations", []))
            if not refutes:
                step["verdicts"] = {pid: "approve"}
    return scenario


def write_all():
    groups = {
        "trustfork": trustfork_scenarios(),
        "defer": defer_scenarios(),
        "verify": verify_scenarios(),
        "evidence": evidence_scenarios(),
        "benign": benign_scenarios(),
        "grants": grants_scenarios(),
    }
    seen = set()
    total = 0
    for folder, scenarios in groups.items():
        out = HERE / folder
        if out.exists():
            shutil.rmtree(out)
        out.mkdir()
        for s in map(with_verdicts, scenarios):
            assert s["id"] not in seen, s["id"]
            seen.add(s["id"])
            (out / f"{s['id']}.json").write_text(json.dumps(s, indent=2, ensure_ascii=False) + "\n")
            total += 1
    print(f"wrote {total} scenarios")


if __name__ == "__main__":
    write_all()
