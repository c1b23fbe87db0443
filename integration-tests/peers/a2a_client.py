"""A2A coordinator-side client peer (official `a2a-sdk`) for Blindfold's integration tests.

Usage: a2a_client.py BASE_URL --version 1.0|0.3 [--stream|--no-stream] [--action JSON] TEXT
Discovers the agents behind Blindfold (GET BASE/a2a), resolves each card with the SDK's card
resolver, sends TEXT to each (a v0.3 client when --version 0.3) and prints one JSON object with
everything it received: aliases, cards, and every response event as JSON."""

import argparse
import asyncio
import json
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("base")
    p.add_argument("text")
    p.add_argument("--version", default="1.0")
    p.add_argument("--stream", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--action")
    a = p.parse_args()
    out = {"agents": [], "cards": {}, "events": {}, "errors": {}}
    async with httpx.AsyncClient(timeout=30) as http:
        listing = (await http.get(f"{a.base}/a2a")).json()
        for agent in listing["agents"]:
            alias = agent["alias"]
            out["agents"].append(alias)
            card = await A2ACardResolver(http, agent["url"]).get_agent_card()
            out["cards"][alias] = MessageToDict(card)
            if a.version == "0.3":
                for iface in card.supported_interfaces:
                    iface.protocol_version = "0.3"
            client = await create_client(
                card,
                client_config=ClientConfig(streaming=a.stream, supported_protocol_bindings=["JSONRPC"], httpx_client=http),
            )
            parts = [Part(text=a.text)]
            if a.action:
                data = Value()
                data.struct_value.update({"blindfold/action": json.loads(a.action)})
                parts.append(Part(data=data))
            msg = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=parts)
            events = []
            try:
                async for ev in client.send_message(SendMessageRequest(message=msg)):
                    events.append(MessageToDict(ev) if hasattr(ev, "DESCRIPTOR") else repr(ev))
            except Exception as e:  # noqa: BLE001 - the test inspects protocol errors
                out["errors"][alias] = f"{type(e).__name__}: {e}"
            out["events"][alias] = events
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
