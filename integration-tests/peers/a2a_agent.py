"""A2A sub-agent peer (official `a2a-sdk`, v1.0 with v0.3 compat) whose card and runtime
metadata carry its model, family, tier and provider. It answers every message with a working
status, an artifact and completion, all tagged with identity metadata. It supports push
notifications (configs kept in memory, tasks POSTed to the webhook a client names) and serves an
extended card richer in identity than the public one: provider, version, icon and documentation
URLs, a vendor extension whose params name the model, an OpenID Connect issuer on the provider's
domain, its own interface URL and a signature by the agent's own key. Its JSON-RPC answers
carry an `A2A-Extensions` header naming that vendor extension, and each event of its streams an
`id:` naming the model and an `event:` name naming the family (as a vendor gateway tags them).
Usage: a2a_agent.py [--rest] PORT MODEL FAMILY TIER PROVIDER [SIGN_KEY_PEM KID [tamper]]
With --rest it also serves the HTTP+JSON binding (the SDK's REST routes at /a2a/rest, in its card
next to a gRPC interface it does not serve) and records every request it receives (verb, path,
body) for GET /seen.
With SIGN_KEY_PEM and KID the card is signed with the SDK's own signer (EdDSA JWS over the
RFC 8785 canonical card); with `tamper` the description is changed after signing."""

import sys
import uuid

import httpx
import uvicorn
from a2a.helpers.proto_helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    Message,
    OpenIdConnectSecurityScheme,
    Part,
    Role,
    SecurityScheme,
    TaskState,
)
from google.protobuf.struct_pb2 import Struct
from starlette.applications import Starlette

REST = "--rest" in sys.argv
ARGV = [a for a in sys.argv if a != "--rest"]
PORT, MODEL, FAMILY, TIER, PROVIDER = int(ARGV[1]), *ARGV[2:6]
SIGN = ARGV[6:8] if len(ARGV) >= 8 else None
TAMPER = len(ARGV) >= 9 and ARGV[8] == "tamper"
URL = f"http://127.0.0.1:{PORT}/a2a/jsonrpc"
REST_URL = f"http://127.0.0.1:{PORT}/a2a/rest"
SEEN: list[dict] = []


def identity_meta() -> Struct:
    s = Struct()
    s.update({"model": MODEL, "adk_app_name": f"{FAMILY}-app", "provider": PROVIDER, "tier": TIER, "note": "ok"})
    return s


class Executor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED, history=[context.message])
        task.metadata.update({"model": MODEL, "kagent_provider": PROVIDER})
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        text = context.get_user_input()
        await updater.start_work(
            message=Message(
                role=Role.ROLE_AGENT,
                message_id=str(uuid.uuid4()),
                parts=[Part(text=f"As {MODEL} by {PROVIDER}, a {TIER}-tier agent, I am on it.")],
                metadata=identity_meta(),
            )
        )
        await updater.add_artifact(
            parts=[Part(text=f"echo: {text}")],
            name=f"{MODEL} answer",
            metadata=identity_meta(),
            last_chunk=True,
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


card = AgentCard(
    name=f"{MODEL} helper",
    description=f"A {TIER} agent powered by {MODEL} ({FAMILY} family) from {PROVIDER}.",
    supported_interfaces=[AgentInterface(url=URL, protocol_binding="JSONRPC", protocol_version="1.0")]
    + ([AgentInterface(url=REST_URL, protocol_binding="HTTP+JSON", protocol_version="1.0"),
        AgentInterface(url=f"127.0.0.1:{PORT + 1}", protocol_binding="GRPC", protocol_version="1.0")] if REST else []),
    provider=AgentProvider(organization=PROVIDER, url=f"https://{PROVIDER.lower()}.example"),
    version="7.3.1",
    capabilities=AgentCapabilities(streaming=True, push_notifications=True, extended_agent_card=True),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
    skills=[
        AgentSkill(
            id="echo",
            name="Echo",
            description=f"Echoes the request, as only {MODEL} can.",
            tags=["echo", FAMILY],
            examples=["say hi"],
        )
    ],
)

if SIGN:
    from a2a.utils.signing import create_agent_card_signer

    import base64

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    # `blindfold keygen` writes PKCS#8 v2 (with the public key), which this `cryptography`
    # refuses; the 32-byte Ed25519 seed sits at the same offset in v1 and v2.
    with open(SIGN[0]) as f:
        der = base64.b64decode("".join(line for line in f.read().splitlines() if "-----" not in line))
    key = Ed25519PrivateKey.from_private_bytes(der[16:48])
    card = create_agent_card_signer(signing_key=key, protected_header={"alg": "EdDSA", "kid": SIGN[1], "typ": "JOSE"})(card)
    if TAMPER:
        card.description = f"A {TIER} agent powered by {MODEL}, now claiming more than it signed."


def extended_card() -> AgentCard:
    """The card served to `GetExtendedAgentCard`, signed by a key of the agent's own."""
    from a2a.utils.signing import create_agent_card_signer
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    domain = f"{PROVIDER.lower()}.example"
    ext = AgentCard()
    ext.CopyFrom(card)
    del ext.signatures[:]
    # v0.3 clients are served this card too (converted by the SDK), which needs a 0.3 interface.
    ext.supported_interfaces.append(AgentInterface(url=URL, protocol_binding="JSONRPC", protocol_version="0.3"))
    ext.name = f"{MODEL} helper (extended)"
    ext.version = "7.3.1-extended"
    ext.icon_url = f"https://{domain}/{MODEL}.png"
    ext.documentation_url = f"https://docs.{domain}/{FAMILY}"
    params = Struct()
    params.update({"model": MODEL, "family": FAMILY, "tier": TIER})
    ext.capabilities.extensions.append(AgentExtension(uri=f"https://{domain}/ext/{FAMILY}", params=params))
    ext.security_schemes["oidc"].CopyFrom(
        SecurityScheme(open_id_connect_security_scheme=OpenIdConnectSecurityScheme(
            open_id_connect_url=f"https://login.{domain}/.well-known/openid-configuration"))
    )
    header = {"alg": "EdDSA", "kid": f"{FAMILY}-card-key", "typ": "JOSE"}
    return create_agent_card_signer(signing_key=Ed25519PrivateKey.generate(), protected_header=header)(ext)


push_store = InMemoryPushNotificationConfigStore()
handler = DefaultRequestHandler(
    agent_executor=Executor(),
    task_store=InMemoryTaskStore(),
    agent_card=card,
    extended_agent_card=extended_card(),
    push_config_store=push_store,
    push_sender=BasePushNotificationSender(httpx.AsyncClient(), push_store),
)
routes = create_agent_card_routes(agent_card=card) + create_jsonrpc_routes(
    request_handler=handler, rpc_url="/a2a/jsonrpc", enable_v0_3_compat=True
)
if REST:
    from a2a.server.routes import create_rest_routes
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def seen(_request):
        return JSONResponse(SEEN)

    routes = [Route("/seen", seen, methods=["GET"])] + routes + create_rest_routes(handler, path_prefix="/a2a/rest")


def recorded(app):
    """Wraps the ASGI app: every HTTP request (verb, path, query, body) is kept for GET /seen."""

    async def wrapped(scope, receive, send):
        if scope["type"] != "http" or scope["path"] == "/seen":
            return await app(scope, receive, send)
        entry = {"verb": scope["method"], "path": scope["path"], "query": scope["query_string"].decode(), "body": ""}
        SEEN.append(entry)

        async def recording():
            message = await receive()
            if message["type"] == "http.request":
                entry["body"] += message.get("body", b"").decode(errors="replace")
            return message

        await app(scope, recording, send)

    return wrapped


def vendor_tagged(app):
    """Wraps the ASGI app: every response gets the vendor extension in `A2A-Extensions`, and every
    data event of a stream an `id:` naming the model and an `event:` name naming the family."""

    async def wrapped(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        count = 0

        async def tagged(message):
            nonlocal count
            if message["type"] == "http.response.start":
                ext = f"https://{PROVIDER.lower()}.example/ext/{FAMILY}".encode()
                message = {**message, "headers": [*message.get("headers", []), (b"a2a-extensions", ext)]}
            elif message["type"] == "http.response.body" and message.get("body", b"").startswith(b"data:"):
                count += 1
                tags = f"id: {MODEL}-event-{count}\r\nevent: {FAMILY}-update\r\n".encode()
                message = {**message, "body": tags + message["body"]}
            await send(message)

        await app(scope, receive, tagged)

    return wrapped


app = vendor_tagged(Starlette(routes=routes))
uvicorn.run(recorded(app) if REST else app, host="127.0.0.1", port=PORT, log_level="warning")
