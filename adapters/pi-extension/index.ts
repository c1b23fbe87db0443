// Blindfold's Pi extension: every tool call of this `pi` process is decided by the Blindfold
// daemon next to it before it runs; sub-agent answers are recorded as evidence (a refutation
// takes execute authority away) and, like every text sent to the model, rewritten so that no
// sub-agent identity (model, family, tier, provider, real name) reaches the coordinator.
//
// Install: `blindfold init pi` (copies this folder to `.pi/extensions/blindfold/`, the shared
// control client to `.pi/extensions/blindfold-common/`, and writes `.pi/blindfold.json`), or load it with `pi -e path/to/index.ts`. Pi's sub-agents run as child
// `pi` processes without a UI; they load project extensions too, so the same gate runs in each
// child. The coordinator passes its trajectory id to its children in the environment
// (BLINDFOLD_TRAJECTORY), and a child is told apart by the task it was started with.
//
// Settings, first found wins:
//   env BLINDFOLD_CONTROL_URL        (default ws://127.0.0.1:7700/v1/control)
//   env BLINDFOLD_ADAPTER_TOKEN      the adapter token itself, or
//   env BLINDFOLD_ADAPTER_TOKEN_FILE a file holding it (Blindfold's state dir: adapter.token)
//   env BLINDFOLD_TIMEOUT_MS         per request (default 5000)
//   env BLINDFOLD_TRAJECTORY         the trajectory to join (set for children automatically)
//   `.pi/blindfold.json`             {"url", "tokenFile", "timeoutMs", "modelProxy"}
//
// One trajectory per Pi session (`pi-<session id>`: `pi -c` continues it), shared with the
// model-API proxy: with `modelProxy` set (the provider reaches the model through Blindfold), each
// process marks its system prompt with the session tag it got from `pi.session`; the proxy reads
// the trajectory and the acting agent off it and removes the marker before the model reads it.
//
// Fail closed: a denial, a review, a timeout, an unreachable daemon or any error blocks the tool
// call with the reason (the model receives it as the tool's result); a result or context that
// could not be scrubbed is withheld from the model.

import { existsSync, readdirSync, readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { type ControlSettings, call, loadSettings, readSettingsFile } from "../blindfold-common/control.ts"

const CHILD_MARK = "BLINDFOLD_PI_PARENT"
const WITHHELD = "[withheld by Blindfold: the text could not be checked]"

function settings(cwd: string): ControlSettings {
  return loadSettings(readSettingsFile(join(cwd, ".pi", "blindfold.json")))
}

/** True when `blindfold init pi` routed the project's provider through the model-API proxy. */
function viaProxy(cwd: string): boolean {
  return Boolean(readSettingsFile(join(cwd, ".pi", "blindfold.json"))?.modelProxy)
}

/** Sub-agents Pi's `subagent` tool can start: frontmatter of the user and project agent files. */
function agents(cwd: string): any[] {
  const dirs = [
    join(process.env.PI_CODING_AGENT_DIR ?? join(homedir(), ".pi", "agent"), "agents"),
    join(cwd, ".pi", "agents"),
  ]
  const out: any[] = []
  for (const dir of dirs) {
    if (!existsSync(dir)) continue
    for (const name of readdirSync(dir)) {
      if (!name.endsWith(".md")) continue
      let text = ""
      try {
        text = readFileSync(join(dir, name), "utf8")
      } catch {
        continue
      }
      const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)
      if (!m) continue
      const fm: Record<string, string> = {}
      for (const line of m[1].split(/\r?\n/)) {
        const kv = /^([A-Za-z_]+):\s*(.*)$/.exec(line)
        if (kv) fm[kv[1]] = kv[2].trim().replace(/^["']|["']$/g, "")
      }
      if (!fm.name) continue
      out.push({
        name: fm.name,
        model: fm.model ?? "",
        family: fm.family ?? "",
        tier: fm.tier ?? "",
        provider: fm.provider ?? "",
      })
    }
  }
  return out
}

/** Text parts of a content array, as references that can be written back in order. */
function textParts(content: any): { get: () => string; set: (t: string) => void }[] {
  if (!Array.isArray(content)) return []
  return content
    .filter((p: any) => p && p.type === "text" && typeof p.text === "string")
    .map((p: any) => ({ get: () => p.text, set: (t: string) => (p.text = t) }))
}

/** Every string the model will read in `messages`: user text, assistant text and thinking,
 * tool call arguments' strings, and tool results. */
function messageTexts(messages: any[]): { get: () => string; set: (t: string) => void }[] {
  const refs: { get: () => string; set: (t: string) => void }[] = []
  const walk = (obj: any, key: string | number) => {
    const v = obj[key]
    if (typeof v === "string") refs.push({ get: () => obj[key], set: (t) => (obj[key] = t) })
    else if (v && typeof v === "object") for (const k of Object.keys(v)) walk(v, Array.isArray(v) ? Number(k) : k)
  }
  for (const m of messages) {
    if (!m || typeof m !== "object") continue
    if (typeof m.content === "string") walk(m, "content")
    else if (Array.isArray(m.content)) {
      for (const part of m.content) {
        if (!part || typeof part !== "object") continue
        for (const key of ["text", "thinking"]) if (typeof part[key] === "string") walk(part, key)
        if (part.arguments && typeof part.arguments === "object") walk(part, "arguments")
      }
    }
  }
  return refs
}

export default function blindfold(pi: any) {
  // This project's providers reach the model through Blindfold's model-API proxy (for this
  // project only: Pi's models.json is left as it is).
  const routed = readSettingsFile(join(process.cwd(), ".pi", "blindfold.json"))?.providers
  if (routed && typeof routed === "object") {
    for (const [name, baseUrl] of Object.entries(routed)) {
      if (typeof baseUrl === "string") pi.registerProvider(name, { baseUrl })
    }
  }
  const isChild = process.env[CHILD_MARK] === "1"
  let trajectory = process.env.BLINDFOLD_TRAJECTORY ?? ""
  let task: string | undefined
  let cwd = process.cwd()
  let sessionId = ""
  let tag = ""
  const who = () => ({ trajectory, ...(isChild ? { task: task ?? "" } : {}) })

  /** Joins (or opens) the trajectory; the coordinator passes it on to its children. */
  async function join_(prompt?: string) {
    const s = settings(cwd)
    const res = await call(s, "pi.session", {
      ...who(),
      trajectory: trajectory || undefined,
      agents: agents(cwd),
      prompt,
      ...(!isChild && sessionId ? { session_id: sessionId } : {}),
    })
    trajectory = res.trajectory
    if (typeof res.tag === "string") tag = res.tag
    if (!isChild) {
      process.env.BLINDFOLD_TRAJECTORY = trajectory
      process.env[CHILD_MARK] = "1"
    }
  }

  pi.on("session_start", async (_event: any, ctx: any) => {
    cwd = ctx?.cwd ?? cwd
    try {
      sessionId = String(ctx?.sessionManager?.getSessionId?.() ?? "")
    } catch {
      sessionId = ""
    }
    if (isChild) return // a child joins once it knows its task (before_agent_start)
    try {
      await join_()
    } catch {
      // Tool calls will fail closed until the daemon answers.
    }
  })

  pi.on("before_agent_start", async (event: any) => {
    if (isChild && task === undefined) task = String(event?.prompt ?? "")
    try {
      await join_(String(event?.prompt ?? ""))
    } catch {
      // Tool calls will fail closed until the daemon answers.
    }
    // The model-API proxy reads the session off this marker (and removes it); without a tag the
    // proxy refuses the turn's tool calls.
    if (tag && viaProxy(cwd)) {
      return { systemPrompt: `${event?.systemPrompt ?? ""}\n\n[[blindfold-session:${tag}]]` }
    }
    return undefined
  })

  pi.on("tool_call", async (event: any) => {
    try {
      if (!trajectory) await join_()
      const v = await call(settings(cwd), "pi.tool_call", {
        ...who(),
        call_id: String(event.toolCallId ?? ""),
        tool: String(event.toolName ?? ""),
        input: event.input ?? {},
      })
      if (!v || v.allow !== true) return { block: true, reason: v?.reason || "Blindfold: denied" }
      if (v.input && typeof v.input === "object" && event.input && typeof event.input === "object") {
        for (const k of Object.keys(event.input)) delete event.input[k]
        Object.assign(event.input, v.input)
      }
      return undefined
    } catch (e: any) {
      return { block: true, reason: `Blindfold: denied (fail closed): ${e?.message ?? e}` }
    }
  })

  pi.on("tool_result", async (event: any) => {
    const parts = textParts(event.content)
    try {
      const res = await call(settings(cwd), "pi.tool_result", {
        ...who(),
        call_id: String(event.toolCallId ?? ""),
        tool: String(event.toolName ?? ""),
        input: event.input ?? {},
        texts: parts.map((p) => p.get()),
        details: event.details ?? null,
      })
      const content = structuredClone(event.content ?? [])
      const out = textParts(content)
      if (!Array.isArray(res?.texts) || res.texts.length !== out.length) throw new Error("bad scrub answer")
      out.forEach((p, i) => p.set(String(res.texts[i])))
      return { content, details: res.details ?? undefined }
    } catch {
      return { content: [{ type: "text", text: WITHHELD }], details: undefined }
    }
  })

  pi.on("context", async (event: any) => {
    const messages = event.messages ?? []
    const refs = messageTexts(messages)
    try {
      const res = await call(settings(cwd), "pi.context", { ...who(), texts: refs.map((r) => r.get()) })
      if (!Array.isArray(res?.texts) || res.texts.length !== refs.length) throw new Error("bad scrub answer")
      refs.forEach((r, i) => r.set(String(res.texts[i])))
    } catch {
      refs.forEach((r) => r.set(WITHHELD))
    }
    return { messages }
  })
}
