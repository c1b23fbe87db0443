"""Helpers shared by the per-language answer lists."""


def item(kind, action, *messages, v=None, vw=None, note=None):
    """One answer: its kind, the key of the action under review, one or two messages.

    `v` is the reason of the verdict line this answer gets in the with-verdict set (absent: not in
    that set); `vw` overrides the verdict word when it is meant to disagree with the prose.
    """
    assert 1 <= len(messages) <= 2, messages
    return {"kind": kind, "action": action, "messages": list(messages), "v": v, "vw": vw, "note": note}
