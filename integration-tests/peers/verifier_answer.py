"""How the scripted verifiers answer a verification request, as a model would: a sentence of
prose, then (unless told otherwise) the verdict line for each handle the request names.

MODE: "approve" or "refuse" (prose plus verdict lines), "prose" (an approval in prose only,
no verdict line), "wrong" (approves a handle it made up). Shared by the A2A and chat verifiers."""

import re

HANDLE = re.compile(r"\bbf-[a-z2-9]{12}\b")


def answer(mode: str, request: str) -> str:
    handles = sorted(set(HANDLE.findall(request)))
    if mode == "refuse":
        lines = ["This would overwrite a file the task never asked to touch; it should not run."]
        lines += [f"VERDICT {h}: refuse - not part of the task" for h in handles]
    elif mode == "prose":
        lines = ["Looks fine to me, go ahead."]
    elif mode == "wrong":
        lines = ["Fine.", "VERDICT bf-aaaaaaaaaaaa: approve - fine"]
    else:
        lines = ["I read the action and what it rests on: it writes the notes file the task asks for."]
        lines += [f"VERDICT {h}: approve - the write the task asks for" for h in handles]
    return "\n".join(lines)
