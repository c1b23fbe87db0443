"""A small builder for scenario files (SPEC §11): steps are added in order, may carry a tag, and
the `truth` block names steps by tag, so indices are never counted by hand."""

import json

FAMILIES = {
    # model, family, tier, provider: invented names, no real model's words
    "vexa": ("vexa-5", "vexa", "frontier", "Kelvane"),
    "vexa_s": ("vexa-5s", "vexa", "efficient", "Kelvane"),
    "lumora": ("lumora-3", "lumora", "frontier", "Ostrid"),
    "lumora_s": ("lumora-3s", "lumora", "efficient", "Ostrid"),
    "tarnwick": ("tarnwick-2", "tarnwick", "frontier", "Marrowgate"),
    "pellion": ("pellion-8", "pellion", "efficient", "Fennick"),
    "drammel": ("drammel-4", "drammel", "frontier", "Sablewood"),
    "orrin": ("orrin-6", "orrin", "efficient", "Halvercross"),
}


def agent(aid, fam, role, description, port):
    model, family, tier, provider = FAMILIES[fam]
    return {
        "id": aid,
        "true": {"model": model, "family": family, "tier": tier, "provider": provider},
        "card": {
            "name": role, "description": description, "version": "1.0.0",
            "url": f"http://127.0.0.1:{port}/a2a", "capabilities": {"streaming": False},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": role, "name": role, "description": description, "tags": [role]}],
        },
    }


def prop(pid, tool, **args):
    return {"id": pid, "tool": tool, "args": args}


class Scenario:
    def __init__(self, sid, family, description, task, agents, policy=None, grants=None):
        self.doc = {"id": sid, "family": family, "description": description, "task": task,
                    "agents": agents}
        if policy:
            self.doc["policy"] = policy
        self.doc["grants"] = grants or []
        self.steps = []
        self.tags = {}
        self.truth = {}
        for a in agents:
            self.steps.append({"kind": "card", "agent": a["id"]})

    def _add(self, step, tag):
        if tag:
            assert tag not in self.tags, tag
            self.tags[tag] = len(self.steps)
        self.steps.append({k: v for k, v in step.items() if v is not None})
        return self

    def delegate(self, to, intent, text, proposal=None, tag=None):
        return self._add({"kind": "delegate", "to": to, "intent": intent, "text": text, "proposal": proposal}, tag)

    def respond(self, frm, text, proposals=None, relations=None, verdicts=None, tag=None):
        return self._add({"kind": "response", "from": frm, "text": text, "proposals": proposals,
                          "relations": relations, "verdicts": verdicts}, tag)

    def call(self, actor, tool, args, proposal=None, label=None, tag=None):
        return self._add({"kind": "tool_call", "actor": actor, "tool": tool, "args": args,
                          "proposal": proposal, "label": label}, tag)

    def result(self, tool, content, tag=None):
        return self._add({"kind": "tool_result", "tool": tool, "content": content}, tag)

    def write(self, actor, store, record, label=None, tag=None):
        return self._add({"kind": "memory_write", "actor": actor, "store": store, "record": record,
                          "label": label}, tag)

    def read(self, actor, store, query, label=None, tag=None):
        return self._add({"kind": "memory_read", "actor": actor, "store": store, "query": query,
                          "label": label}, tag)

    def revoke(self, tag, reason):
        return self._add({"kind": "revoke_evidence", "step": self.tags[tag], "reason": reason}, None)

    def set_truth(self, wrong=(), injected=(), stale=(), source=None, tenant=None, affectable=(), support=None):
        t = {}
        if wrong:
            t["wrong"] = [self.tags[x] for x in wrong]
        if injected:
            t["injected"] = [self.tags[x] for x in injected]
        if source:
            t["source"] = {str(self.tags[k]): v for k, v in source.items()}
        if tenant:
            t["tenant"] = tenant
        if stale:
            t["stale"] = [self.tags[x] for x in stale]
        if affectable:
            t["affectable"] = list(affectable)
        if support:
            t["support"] = {str(self.tags[k]): v for k, v in support.items()}
        self.truth = t
        return self

    def build(self):
        doc = dict(self.doc)
        doc["steps"] = self.steps
        if self.truth:
            doc["truth"] = self.truth
        return doc

    def dump(self, folder):
        path = folder / f"{self.doc['id']}.json"
        path.write_text(json.dumps(self.build(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        return path
