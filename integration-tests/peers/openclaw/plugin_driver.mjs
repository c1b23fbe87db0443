// Drives Blindfold's OpenClaw plugin outside OpenClaw: registers it against a recording `api`
// (the hooks and the tool-result middleware it asks for) and calls them as a script says.
// Usage: node plugin_driver.mjs <plugin index.ts> <script.json>
// The script is {"config": {...}, "steps": [{"hook": "before_tool_call", "event": {...},
// "ctx": {...}}, ...]}; hook "middleware" calls the tool-result middleware. Prints one JSON line
// per step: {"hook", "result"} (or {"hook", "error"} when the handler threw).

import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

const [pluginPath, scriptPath] = process.argv.slice(2)
const script = JSON.parse(readFileSync(scriptPath, "utf8"))
const handlers = new Map()
let middleware
const api = {
  id: "blindfold",
  pluginConfig: script.config ?? {},
  registrationMode: "full",
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
  const handler = step.hook === "middleware" ? middleware : handlers.get(step.hook)
  if (!handler) {
    console.log(JSON.stringify({ hook: step.hook, error: "no handler registered" }))
    continue
  }
  try {
    const result = await handler(step.event ?? {}, step.ctx ?? {})
    console.log(JSON.stringify({ hook: step.hook, result: result ?? null }))
  } catch (e) {
    console.log(JSON.stringify({ hook: step.hook, error: String(e?.message ?? e) }))
  }
}
