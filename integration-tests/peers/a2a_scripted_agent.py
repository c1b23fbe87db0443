"""A2A sub-agent peer (official `a2a-sdk`, v1.0 with v0.3 compat) that answers every message with
a scripted reply: a working status ("Looking into it."), half a second later an artifact with the reply's text part and, when given,
one data part (Blindfold's evidence schema: `blindfold/proposal`, `blindfold/relation`), then
completion. Usage: a2a_scripted_agent.py PORT NAME DESCRIPTION REPLY_JSON
(REPLY_JSON: {"text": …, "data": {…}}; DESCRIPTION is the capability text of its card; instead of
"text", "parts": [TEXT…] answers with one artifact of several text parts, and "chunks": [TEXT…]
streams the artifact's text as successive artifact-update chunks of one artifact, the last one
marked `lastChunk` only when "last_chunk" is true). It serves the JSON-RPC binding and the SDK's
HTTP+JSON (REST) routes at /a2a/rest, both in its card."""

import asyncio
import json
import sys
import uuid

import uvicorn
from a2a.helpers.proto_helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Message, Part, Role, TaskState
from google.protobuf.struct_pb2 import Value
from starlette.applications import Starlette

PORT, NAME, DESCRIPTION, REPLY = int(sys.argv[1]), sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
URL = f"http://127.0.0.1:{PORT}/a2a/jsonrpc"


class Executor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED, history=[context.message])
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work(
            message=Message(role=Role.ROLE_AGENT, message_id=str(uuid.uuid4()), parts=[Part(text="Looking into it.")])
        )
        # Still working a moment, so a client that does not wait sees the interim status first.
        await asyncio.sleep(0.5)
        if REPLY.get("chunks"):
            artifact_id = str(uuid.uuid4())
            for i, text in enumerate(REPLY["chunks"]):
                last = i + 1 == len(REPLY["chunks"]) and REPLY.get("last_chunk", False)
                await updater.add_artifact(
                    parts=[Part(text=text)], artifact_id=artifact_id, name="answer", append=i > 0, last_chunk=last
                )
                await asyncio.sleep(0.05)
            await updater.complete()
            return
        parts = [Part(text=t) for t in REPLY.get("parts", [REPLY.get("text", "")])]
        if REPLY.get("data"):
            data = Value()
            data.struct_value.update(REPLY["data"])
            parts.append(Part(data=data))
        await updater.add_artifact(parts=parts, name="answer", last_chunk=True)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


card = AgentCard(
    name=NAME,
    description=DESCRIPTION,
    supported_interfaces=[
        AgentInterface(url=URL, protocol_binding="JSONRPC", protocol_version="1.0"),
        AgentInterface(url=f"http://127.0.0.1:{PORT}/a2a/rest", protocol_binding="HTTP+JSON", protocol_version="1.0"),
    ],
    version="1.0.0",
    capabilities=AgentCapabilities(streaming=True),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
    skills=[AgentSkill(id="ops", name="Ops", description="Operations advice.", tags=["ops"])],
)

handler = DefaultRequestHandler(agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=card)
routes = create_agent_card_routes(agent_card=card) + create_jsonrpc_routes(
    request_handler=handler, rpc_url="/a2a/jsonrpc", enable_v0_3_compat=True
) + create_rest_routes(handler, path_prefix="/a2a/rest")
uvicorn.run(Starlette(routes=routes), host="127.0.0.1", port=PORT, log_level="warning")
