// Drives Blindfold's OpenClaw plugin outside OpenClaw: registers it against a recording `api`
// (the hooks and the tool-result middleware it asks for) and calls them as a script says.
// Usage: node plugin_driver.mjs <plugin index.ts> <script.json>
// The script is {"config": {...}, "steps": [{"hook": "before_tool_call", "event": {...},
// "ctx": {...}}, ...]}; hook "middleware" calls the tool-result middleware. Prints one JSON line
// per step: {"hook", "result"} (or {"hook", "error"} when the handler threw).
// Like the Gateway, the driver turns a `requireApproval` answer into a pending plugin approval
// (`plugin:<n>`, listed and resolved through `api.runtime.gateway.request`, only with a decision
// it offers); step {"hook": "await_approval", "toolCallId", "timeoutMs"} waits for its decision,
// calls `onResolution` with it and prints {"hook", "result": {"decision", "gateway": [calls]}}.
// Script "gateway": false leaves `api.runtime.gateway` out.

import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

const [pluginPath, scriptPath] = process.argv.slice(2)
const script = JSON.parse(readFileSync(scriptPath, "utf8"))
const handlers = new Map()
let middleware
const approvals = new Map() // toolCallId → {id, request, approval, decision, settled}
const gatewayCalls = []
const gateway = {
  async isAvailable() {
    return true
  },
  async request(method, params) {
    gatewayCalls.push({ method, params })
    if (method === "plugin.approval.list") {
      return [...approvals.values()].filter((a) => !a.decision).map((a) => ({ id: a.id, request: a.request }))
    }
    if (method === "plugin.approval.resolve") {
      const a = [...approvals.values()].find((x) => x.id === params?.id)
      if (!a || a.decision) throw new Error(`unknown or settled approval ${params?.id}`)
      if (!a.request.allowedDecisions.includes(params?.decision)) throw new Error(`${params?.decision} is unavailable`)
      a.decision = params.decision
      a.settled()
      return { ok: true }
    }
    throw new Error(`unexpected gateway method ${method}`)
  },
}
const api = {
  id: "blindfold",
  pluginConfig: script.config ?? {},
  registrationMode: "full",
  runtime: script.gateway === false ? {} : { gateway },
  on(name, handler) {
    handlers.set(name, handler)
  },
  registerAgentToolResultMiddleware(handler, options) {
    if (!options?.runtimes?.includes("openclaw")) throw new Error("middleware not for the openclaw runtime")
    middleware = handler
  },
}
const plugin = (await import(pathToFileURL(pluginPath).href)).default
plugin.register(api)
for (const step of script.steps) {
  if (step.hook === "await_approval") {
    const a = approvals.get(step.toolCallId)
    if (!a) {
      console.log(JSON.stringify({ hook: step.hook, error: "no approval was requested" }))
      continue
    }
    let timer
    const timeout = new Promise((r) => (timer = setTimeout(r, step.timeoutMs ?? 60000)))
    await Promise.race([a.done, timeout])
    clearTimeout(timer)
    const decision = a.decision ?? "timeout"
    await a.approval.onResolution?.(decision)
    console.log(JSON.stringify({ hook: step.hook, result: { decision, gateway: gatewayCalls } }))
    continue
  }
  const handler = step.hook === "middleware" ? middleware : handlers.get(step.hook)
  if (!handler) {
    console.log(JSON.stringify({ hook: step.hook, error: "no handler registered" }))
    continue
  }
  try {
    const result = await handler(step.event ?? {}, step.ctx ?? {})
    const approval = result?.requireApproval
    if (approval) {
      const toolCallId = String(step.event?.toolCallId ?? "")
      const entry = { id: `plugin:${approvals.size + 1}`, approval, decision: undefined }
      entry.request = { pluginId: "blindfold", toolCallId, allowedDecisions: approval.allowedDecisions ?? ["allow-once", "allow-always", "deny"] }
      entry.done = new Promise((r) => (entry.settled = r))
      approvals.set(toolCallId, entry)
    }
    console.log(JSON.stringify({ hook: step.hook, result: result ?? null }))
  } catch (e) {
    console.log(JSON.stringify({ hook: step.hook, error: String(e?.message ?? e) }))
  }
}
