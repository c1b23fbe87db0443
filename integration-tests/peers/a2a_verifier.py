"""An A2A verifier (official `a2a-sdk`, protocol 1.0) that Blindfold asks itself: it answers
every message as verifier_answer.py's MODE says (or never, for "silent"), and appends each
request's text (one JSON line) to RECORD. Usage: a2a_verifier.py PORT MODE RECORD"""

import asyncio
import json
import sys
import uuid

import uvicorn
from a2a.helpers.proto_helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part, TaskState
from starlette.applications import Starlette

from verifier_answer import answer

PORT, MODE, RECORD = int(sys.argv[1]), sys.argv[2], sys.argv[3]
URL = f"http://127.0.0.1:{PORT}/a2a/jsonrpc"


class Executor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = "\n".join(p.text for p in context.message.parts if p.text)
        with open(RECORD, "a", buffering=1) as rec:
            rec.write(json.dumps({"text": text}) + "\n")
        task = new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED, history=[context.message])
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        if MODE == "silent":
            await asyncio.sleep(3600)
            return
        await updater.add_artifact(parts=[Part(text=answer(MODE, text))], name="verdict", last_chunk=True)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


card = AgentCard(
    name="checker",
    description="Checks proposed actions.",
    supported_interfaces=[AgentInterface(url=URL, protocol_binding="JSONRPC", protocol_version="1.0")],
    version="1.0.0",
    capabilities=AgentCapabilities(streaming=False),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
    skills=[AgentSkill(id="verify", name="Verify", description="Verifies actions.", tags=["verify"])],
)

handler = DefaultRequestHandler(agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=card)
routes = create_agent_card_routes(agent_card=card) + create_jsonrpc_routes(request_handler=handler, rpc_url="/a2a/jsonrpc")
uvicorn.run(Starlette(routes=routes), host="127.0.0.1", port=PORT, log_level="warning")
