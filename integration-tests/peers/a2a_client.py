"""A2A coordinator-side client peer (official `a2a-sdk`) for Blindfold's integration tests.

Usage: a2a_client.py BASE_URL --version 1.0|0.3 [--stream|--no-stream|--poll|--await-review|--cancel-held]
                     [--binding JSONRPC|HTTP+JSON] [--action JSON] [--first KEYWORD [--others-text TEXT2]] TEXT
With --binding HTTP+JSON the SDK client picks the card's HTTP+JSON interface (its REST
transport) instead of JSON-RPC.
Discovers the agents behind Blindfold (GET BASE/a2a), resolves each card with the SDK's card
resolver, verifies each card's signature with the SDK's verifier and Blindfold's published key
(BASE/.well-known/jwks.json), sends TEXT to each (a v0.3 client when --version 0.3) and prints
one JSON object with everything it received (with --first, agents whose card description
contains KEYWORD are delegated to first, as a coordinator picks by capability; with
--others-text the other agents get TEXT2 instead, e.g. a request to review the first's plan): aliases, cards, signature verdicts, and every
response event as JSON. With --poll the send returns at once (`returnImmediately`) and the
client polls `GetTask` until the task reaches a final state, recording every polled task. With
--await-review a send answered `TASK_STATE_AUTH_REQUIRED` is polled with `GetTask` until its
state changes (a human answered the review holding it), recording every polled task. With
--cancel-held a send answered `TASK_STATE_AUTH_REQUIRED` is canceled with `CancelTask` at once
(recorded under "canceled"), then polled once.
With --extended nothing is sent: each agent's extended card is fetched instead (v1.0 with the
SDK client's `get_extended_agent_card`, v0.3 as a raw `agent/getAuthenticatedExtendedCard` call
validated by the SDK's v0.3 card model) and its signature verified with Blindfold's key (v0.3:
the SDK's canonical form of the card as it arrived); cards under "extended", verdicts under
"extended_signature"."""

import argparse
import asyncio
import json
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.compat.v0_3 import types as types_v03
from a2a.types import CancelTaskRequest, GetExtendedAgentCardRequest, GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState
from a2a.utils._jcs import canonicalize
from a2a.utils.signing import SignatureVerificationError, _clean_empty, create_signature_verifier
import jwt
from jwt import PyJWK
from jwt.utils import base64url_decode, base64url_encode
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value


FINAL = {TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED,
         TaskState.TASK_STATE_REJECTED, TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED}


def verify_raw_card(card: dict, keys: dict) -> str:
    """Verifies a card as it arrived (a v0.3 card has no v1.0 proto to hand the SDK's verifier):
    the SDK's canonical form of the card without `signatures`, against each signature."""
    unsigned = {k: v for k, v in card.items() if k != "signatures"}
    payload = base64url_encode(canonicalize(_clean_empty(unsigned)).encode()).decode()
    for sig in card.get("signatures", []):
        kid = json.loads(base64url_decode(sig["protected"].encode()))["kid"]
        if kid not in keys:
            continue
        try:
            jwt.decode(f"{sig['protected']}.{payload}.{sig['signature']}", key=keys[kid], algorithms=["EdDSA"])
            return "verified"
        except jwt.PyJWTError:
            continue
    return "no signature verified with Blindfold's key"


async def extended_card(http, a, url, card, verify, keys) -> tuple[dict, str]:
    """The agent's extended card through Blindfold, as JSON, and its signature verdict."""
    if a.version == "0.3":
        body = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": "agent/getAuthenticatedExtendedCard", "params": {}}
        answer = (await http.post(url, json=body)).json()
        if "result" not in answer:
            raise RuntimeError(f"no extended card: {json.dumps(answer)}")
        types_v03.AgentCard.model_validate(answer["result"])
        return answer["result"], verify_raw_card(answer["result"], keys)
    client = await create_client(
        card, client_config=ClientConfig(streaming=False, supported_protocol_bindings=["JSONRPC"], httpx_client=http)
    )
    ext = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
    try:
        verify(ext)
        verdict = "verified"
    except (SignatureVerificationError, KeyError) as e:
        verdict = f"{type(e).__name__}: {e}"
    return MessageToDict(ext), verdict


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("base")
    p.add_argument("text")
    p.add_argument("--version", default="1.0")
    p.add_argument("--stream", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--poll", action="store_true")
    p.add_argument("--await-review", action="store_true")
    p.add_argument("--cancel-held", action="store_true")
    p.add_argument("--action")
    p.add_argument("--first")
    p.add_argument("--others-text")
    p.add_argument("--extended", action="store_true")
    p.add_argument("--binding", default="JSONRPC")
    a = p.parse_args()
    out = {"agents": [], "cards": {}, "signature": {}, "events": {}, "errors": {}, "extended": {}, "extended_signature": {}}
    async with httpx.AsyncClient(timeout=30) as http:
        listing = (await http.get(f"{a.base}/a2a")).json()
        jwks = (await http.get(f"{a.base}/.well-known/jwks.json")).json()
        keys = {k["kid"]: PyJWK(k) for k in jwks["keys"]}

        def key_provider(kid, _jku):  # the card's own `jku` is never followed
            return keys[kid]

        verify = create_signature_verifier(key_provider, ["EdDSA"])
        resolved = []
        for agent in listing["agents"]:
            resolved.append((agent, await A2ACardResolver(http, agent["url"]).get_agent_card()))
        if a.first:
            resolved.sort(key=lambda ac: a.first not in ac[1].description)
        for agent, card in resolved:
            alias = agent["alias"]
            out["agents"].append(alias)
            out["cards"][alias] = MessageToDict(card)
            try:
                verify(card)
                out["signature"][alias] = "verified"
            except (SignatureVerificationError, KeyError) as e:
                out["signature"][alias] = f"{type(e).__name__}: {e}"
            if a.extended:
                try:
                    out["extended"][alias], out["extended_signature"][alias] = await extended_card(
                        http, a, agent["url"], card, verify, keys
                    )
                except Exception as e:  # noqa: BLE001 - the test inspects protocol errors
                    out["errors"][alias] = f"{type(e).__name__}: {e}"
                continue
            if a.version == "0.3":
                for iface in card.supported_interfaces:
                    iface.protocol_version = "0.3"
            client = await create_client(
                card,
                client_config=ClientConfig(streaming=a.stream and not a.poll, polling=a.poll, supported_protocol_bindings=[a.binding], httpx_client=http),
            )
            text = a.text
            if a.others_text and a.first and a.first not in card.description:
                text = a.others_text
            parts = [Part(text=text)]
            if a.action:
                data = Value()
                data.struct_value.update({"blindfold/action": json.loads(a.action)})
                parts.append(Part(data=data))
            msg = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=parts)
            events = []
            try:
                task_id = None
                async for ev in client.send_message(SendMessageRequest(message=msg)):
                    events.append(MessageToDict(ev) if hasattr(ev, "DESCRIPTOR") else repr(ev))
                    if hasattr(ev, "HasField") and ev.HasField("task"):
                        auth_required = ev.task.status.state == TaskState.TASK_STATE_AUTH_REQUIRED
                        if a.cancel_held and auth_required:
                            canceled = await client.cancel_task(CancelTaskRequest(id=ev.task.id))
                            events.append({"canceled": MessageToDict(canceled)})
                            polled = await client.get_task(GetTaskRequest(id=ev.task.id))
                            events.append({"polled": MessageToDict(polled)})
                        if a.poll or (a.await_review and auth_required):
                            task_id = ev.task.id
                waiting = {TaskState.TASK_STATE_AUTH_REQUIRED} if a.await_review else set()
                for _ in range(600 if task_id else 0):
                    task = await client.get_task(GetTaskRequest(id=task_id))
                    events.append({"polled": MessageToDict(task)})
                    if task.status.state in FINAL - waiting:
                        break
                    await asyncio.sleep(0.1)
            except Exception as e:  # noqa: BLE001 - the test inspects protocol errors
                out["errors"][alias] = f"{type(e).__name__}: {e}"
            out["events"][alias] = events
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
