"""Small builders shared by the corpus modules."""
from corpus_agents import agent, display
from corpus_trustfork import grant_for, tool_step

__all__ = ["agent", "display", "grant_for", "tool_step", "team", "delegate", "respond", "verify_pair"]


def team(specs, shown="true"):
    """Agents from (alias, true model, role) triples, all displaying `shown` identity."""
    return [agent(a, m, display(m, shown, None), r) for a, m, r in specs]


def delegate(to, intent, text, proposal=None):
    s = {"kind": "delegate", "to": to, "intent": intent, "text": text}
    if proposal:
        s["proposal"] = proposal
    return s


def respond(frm, text, proposals=None, relations=None):
    s = {"kind": "response", "from": frm, "text": text}
    if proposals:
        s["proposals"] = [{"id": pid, "tool": t, "args": a} for pid, t, a in proposals]
    if relations:
        s["relations"] = [{"proposal": p, "relation": r} for p, r in relations]
    return s


def verify_pair(verifier, proposal, ask, answer, structured=False):
    """A verify delegation about `proposal` and the verifier's positive answer."""
    rel = [(proposal, "FULL_SUPPORT")] if structured else None
    return [delegate(verifier, "verify", ask, proposal), respond(verifier, answer, relations=rel)]
