// Blindfold's OpenCode plugin: every tool call is decided by the Blindfold daemon next to this
// harness before it runs; sub-agent identity is replaced by neutral aliases; sub-agent answers
// are recorded as evidence (so a refutation takes execute authority away) and rewritten.
//
// Install: `blindfold init opencode` (writes this file to `.opencode/plugins/blindfold.ts` and the
// shared settings loader to `.opencode/blindfold-common/control.ts`, the path it imports).
// Settings, first found wins:
//   env BLINDFOLD_CONTROL_URL        (default ws://127.0.0.1:7700/v1/control)
//   env BLINDFOLD_ADAPTER_TOKEN      the adapter token itself, or
//   env BLINDFOLD_ADAPTER_TOKEN_FILE a file holding it (Blindfold's state dir: adapter.token)
//   env BLINDFOLD_TIMEOUT_MS         per request (default 5000)
//   `.opencode/blindfold.json`       {"url", "tokenFile", "timeoutMs"} (written by `blindfold init`)
//
// Fail closed: a denial, a review, a timeout, an unreachable daemon or any error makes
// `tool.execute.before` throw, and OpenCode does not run the tool (the model sees the message).

import { join } from "node:path"
import { type ControlSettings, loadSettings, readSettingsFile } from "../blindfold-common/control.ts"

type Json = any

/** One JSON-RPC connection to the control API, reopened on demand; every failure rejects. */
class Control {
  private ws: WebSocket | undefined
  private opening: Promise<WebSocket> | undefined
  private next = 1
  private pending = new Map<number, { resolve: (v: Json) => void; reject: (e: Error) => void; timer: any }>()
  private idle: any

  /** An open socket keeps the harness process alive: close it once nothing is pending. */
  private settle() {
    clearTimeout(this.idle)
    if (this.pending.size > 0) return
    this.idle = setTimeout(() => {
      if (this.pending.size === 0) this.ws?.close()
    }, 250)
    this.idle.unref?.()
  }

  constructor(private settings: ControlSettings) {}

  private open(): Promise<WebSocket> {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) return Promise.resolve(this.ws)
    if (this.opening) return this.opening
    const { url, token, timeoutMs } = this.settings
    this.opening = new Promise<WebSocket>((resolve, reject) => {
      if (!token) return reject(new Error("no adapter token configured"))
      // Bun's WebSocket client accepts request headers (the control API needs a bearer token).
      const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } } as Json)
      const timer = setTimeout(() => {
        ws.close()
        reject(new Error("timed out connecting"))
      }, timeoutMs)
      ws.onopen = () => {
        clearTimeout(timer)
        this.ws = ws
        resolve(ws)
      }
      ws.onerror = () => {
        clearTimeout(timer)
        reject(new Error("unreachable"))
      }
      ws.onclose = () => {
        if (this.ws === ws) this.ws = undefined
        for (const [id, p] of this.pending) {
          clearTimeout(p.timer)
          p.reject(new Error("connection closed"))
          this.pending.delete(id)
        }
      }
      ws.onmessage = (m: MessageEvent) => {
        let frame: Json
        try {
          frame = JSON.parse(String(m.data))
        } catch {
          return
        }
        const p = this.pending.get(frame.id)
        if (!p) return
        this.pending.delete(frame.id)
        clearTimeout(p.timer)
        this.settle()
        if (frame.error) p.reject(new Error(`${frame.error.message} (${frame.error.code})`))
        else p.resolve(frame.result)
      }
    }).finally(() => {
      this.opening = undefined
    })
    return this.opening
  }

  async call(method: string, params: Json): Promise<Json> {
    clearTimeout(this.idle)
    const ws = await this.open()
    const id = this.next++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        this.settle()
        reject(new Error("timed out"))
      }, this.settings.timeoutMs)
      this.pending.set(id, { resolve, reject, timer })
      try {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }))
      } catch (e) {
        clearTimeout(timer)
        this.pending.delete(id)
        reject(e instanceof Error ? e : new Error(String(e)))
      }
    })
  }
}

function denial(tool: string, verdict: Json): string {
  const d = verdict?.decision
  if (!d) return `Blindfold blocked this ${tool} call.`
  const detail = d.detail ? `: ${d.detail}` : ""
  return `Blindfold blocked this ${tool} call: ${d.decision} ${d.reason} (${d.check})${detail}`
}

export const BlindfoldPlugin = async (ctx: Json) => {
  const control = new Control(loadSettings(readSettingsFile(join(ctx.directory ?? process.cwd(), ".opencode", "blindfold.json"))))
  // session id → {parent, agent}, from the harness's own session events.
  const sessions = new Map<string, { parent?: string; agent?: string }>()
  // real sub-agent name → the alias it is registered under (for `task` calls that name the real
  // agent, e.g. after Blindfold's model proxy mapped the alias back).
  const aliasOf = new Map<string, string>()

  function caller(sessionID: string): Json {
    const s = sessions.get(sessionID) ?? {}
    return { session_id: sessionID, parent_id: s.parent ?? null, agent: s.agent ?? null }
  }

  async function learnSession(sessionID: string) {
    if (sessions.has(sessionID) || !ctx.client?.session?.get) return
    try {
      const res = await ctx.client.session.get({ path: { id: sessionID } })
      const info = res?.data ?? res
      if (info?.id) sessions.set(info.id, { parent: info.parentID, agent: info.agent })
    } catch {
      // Unknown sessions are treated as root sessions (the coordinator's own).
    }
  }

  return {
    // Runs once when OpenCode loads its config: sub-agents get neutral aliases and descriptions
    // without identity words. This is the hook that reaches the `task` tool's agent list (the
    // list is built from the config after `tool.definition` runs).
    config: async (cfg: Json) => {
      const agents = cfg.agent ?? {}
      const defs = Object.entries(agents).map(([name, a]: [string, Json]) => ({
        name,
        description: a?.description ?? "",
        model: a?.model ?? "",
        mode: a?.mode ?? "",
      }))
      if (defs.length === 0) return
      let shown: Json[]
      try {
        shown = (await control.call("opencode.agents", { agents: defs })).agents
      } catch {
        // Identity fails closed too: without Blindfold, no agent name or description is shown.
        shown = defs.map((d, i) => ({
          name: d.name,
          alias: d.mode === "primary" ? d.name : `agent-${i + 1}`,
          description: d.mode === "primary" ? d.description : "(description withheld: Blindfold is unreachable)",
        }))
      }
      const next: Json = {}
      for (const s of shown) {
        const a = agents[s.name]
        if (!a) continue
        next[s.alias] = { ...a, description: s.description }
        if (s.alias !== s.name) aliasOf.set(s.name, s.alias)
      }
      cfg.agent = next
    },

    event: async ({ event }: Json) => {
      if (event?.type === "session.created" || event?.type === "session.updated") {
        const info = event.properties?.info
        if (info?.id) sessions.set(info.id, { parent: info.parentID, agent: info.agent })
      }
    },

    "tool.execute.before": async (input: Json, output: Json) => {
      await learnSession(input.sessionID)
      const target = output.args?.subagent_type
      if (input.tool === "task" && aliasOf.has(target)) output.args.subagent_type = aliasOf.get(target)
      let verdict: Json
      try {
        verdict = await control.call("opencode.tool_before", {
          ...caller(input.sessionID),
          call_id: input.callID ?? "",
          tool: input.tool,
          args: output.args ?? {},
        })
      } catch (e) {
        throw new Error(`Blindfold blocked this ${input.tool} call: no decision (${(e as Error).message})`)
      }
      if (verdict?.allow !== true) throw new Error(denial(input.tool, verdict))
    },

    "tool.execute.after": async (input: Json, output: Json) => {
      if (input.tool === "task" && output?.metadata) delete output.metadata.model
      try {
        const res = await control.call("opencode.tool_after", {
          ...caller(input.sessionID),
          call_id: input.callID ?? "",
          tool: input.tool,
          args: input.args ?? {},
          output: typeof output.output === "string" ? output.output : "",
        })
        if (typeof res?.output === "string") output.output = res.output
      } catch (e) {
        // A sub-agent's answer is never shown unrewritten.
        if (input.tool === "task") output.output = `(sub-agent result withheld: Blindfold unavailable: ${(e as Error).message})`
      }
    },

    // Before every model call: agent-written history (text parts, `task` results) is rewritten;
    // `metadata.model` of task parts is dropped. Failing here fails the model call (closed).
    "experimental.chat.messages.transform": async (_input: Json, output: Json) => {
      const slots: { get: () => string; set: (v: string) => void }[] = []
      for (const m of output.messages ?? []) {
        for (const part of m.parts ?? []) {
          if (part.type === "text" && typeof part.text === "string") {
            slots.push({ get: () => part.text, set: (v) => (part.text = v) })
          } else if (part.type === "tool" && part.tool === "task" && part.state) {
            if (part.state.metadata) delete part.state.metadata.model
            if (typeof part.state.output === "string") {
              slots.push({ get: () => part.state.output, set: (v) => (part.state.output = v) })
            }
          }
        }
      }
      if (slots.length === 0) return
      const res = await control.call("opencode.scrub", { texts: slots.map((s) => s.get()) })
      slots.forEach((s, i) => {
        if (typeof res.texts?.[i] === "string") s.set(res.texts[i])
      })
    },
  }
}
