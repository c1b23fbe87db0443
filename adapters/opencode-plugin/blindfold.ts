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
//   `.opencode/blindfold.json`       {"url", "tokenFile", "timeoutMs", "modelProxy"} (written by
//                                    `blindfold init`; `modelProxy`: the provider reaches the model
//                                    through Blindfold's model-API proxy)
//
// Fail closed: a denial, a review, a timeout, an unreachable daemon or any error makes
// `tool.execute.before` throw, and OpenCode does not run the tool (the model sees the message).
//
// One trajectory per session, shared with the model-API proxy: the plugin registers each session
// (`opencode.session`) and puts the tag it gets on the session's model requests
// (`X-Blindfold-Session`, through `chat.headers`), so the proxy decides and scrubs them in the same
// trajectory with the same aliases. A daemon that starts after OpenCode or restarts is reached
// again on the next call: the agents are registered again under the aliases OpenCode already shows
// (this process's `instance`), and descriptions withheld meanwhile are filled in.

import { createHash, randomBytes } from "node:crypto"
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
  /** Called when a connection closes: the daemon may have restarted. */
  onClose: () => void = () => {}

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
        this.onClose()
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
  // The daemon's own words for the model (what is missing, never a command to grant it).
  if (typeof verdict?.refusal === "string" && verdict.refusal) return verdict.refusal
  const d = verdict?.decision
  if (!d) return `Blindfold blocked this ${tool} call.`
  return `Blindfold blocked this ${tool} call: ${d.decision} ${d.reason} (${d.check}).`
}

/** `names` shuffled with a CSPRNG (the aliases a process shows when Blindfold cannot be asked). */
function shuffled<T>(names: T[]): T[] {
  const out = [...names]
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomBytes(4).readUInt32BE(0) % (i + 1)
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

export const BlindfoldPlugin = async (ctx: Json) => {
  const file = readSettingsFile(join(ctx.directory ?? process.cwd(), ".opencode", "blindfold.json"))
  const viaProxy = Boolean(file?.modelProxy)
  const raw = new Control(loadSettings(file))
  // OpenCode fixes its agents' names when it starts, so a session continued by a later process
  // must read the names it was shown before: the aliases belong to the project (its directory),
  // drawn once and kept by Blindfold.
  const instance = createHash("sha256")
    .update(String(ctx.worktree ?? ctx.directory ?? process.cwd()))
    .digest("hex")
    .slice(0, 16)
  // The agents as OpenCode defines them, the aliases OpenCode shows them under, and the agent
  // objects OpenCode reads their descriptions from (it reads them on every model request).
  let defs: Json[] = []
  const shownAs: Record<string, string> = {}
  const entries = new Map<string, Json>()
  let registered = false
  raw.onClose = () => {
    registered = false
  }
  /** Registers the agents (again, after a daemon restart) under the aliases OpenCode shows. */
  async function register() {
    const res = await raw.call("opencode.agents", { instance, agents: defs, shown: shownAs })
    for (const s of res?.agents ?? []) {
      const entry = entries.get(shownAs[s.name] ?? s.name)
      if (entry && typeof s.description === "string") entry.description = s.description
    }
    registered = true
  }
  const control = {
    async call(method: string, params: Json): Promise<Json> {
      if (!registered && defs.length > 0) await register()
      return raw.call(method, { ...params, instance })
    },
  }
  // session id → the tag its model requests carry.
  const tags = new Map<string, string>()
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
    // Every agent definition OpenCode read (the `agent` key of opencode.json and the markdown
    // files in `.opencode/agent/`) is here, and a markdown agent carries its `name` too.
    config: async (cfg: Json) => {
      const agents = cfg.agent ?? {}
      defs = Object.entries(agents).map(([name, a]: [string, Json]) => ({
        name,
        description: a?.description ?? "",
        model: a?.model ?? "",
        mode: a?.mode ?? "",
      }))
      if (defs.length === 0) return
      let shown: Json[]
      try {
        shown = (await raw.call("opencode.agents", { instance, agents: defs })).agents
        registered = true
      } catch {
        // Identity fails closed too: without Blindfold no agent name is shown, and no description
        // unless the model-API proxy (part of the same daemon: nothing reaches the model without
        // it) rewrites them on the way. They are filled in once Blindfold answers.
        const aliases = shuffled(defs.filter((d) => d.mode !== "primary").map((_, i) => i))
        let next = 0
        shown = defs.map((d) => ({
          name: d.name,
          alias: d.mode === "primary" ? d.name : `agent-${String.fromCharCode(97 + (aliases[next++] % 26))}`,
          description:
            d.mode === "primary" || viaProxy ? d.description : "(description withheld: Blindfold is unreachable)",
        }))
      }
      const next: Json = {}
      for (const s of shown) {
        const a = agents[s.name]
        if (!a) continue
        // `name` too: OpenCode lists a markdown agent by the name it carries, not by its key.
        next[s.alias] = { ...a, name: s.alias, description: s.description }
        entries.set(s.alias, next[s.alias])
        shownAs[s.name] = s.alias
        if (s.alias !== s.name) aliasOf.set(s.name, s.alias)
      }
      cfg.agent = next
    },

    // Every model request of a session carries its tag, so the model-API proxy decides it in the
    // session's trajectory as the session's agent. Without Blindfold no tag is added (and the
    // proxy, part of the same daemon, is unreachable too).
    "chat.headers": async (input: Json, output: Json) => {
      const id = String(input?.sessionID ?? "")
      if (!id || !output) return
      try {
        let tag = tags.get(id)
        if (!tag) {
          await learnSession(id)
          const res = await control.call("opencode.session", caller(id))
          if (typeof res?.tag === "string") {
            tag = res.tag
            tags.set(id, res.tag)
          }
        }
        if (tag) output.headers = { ...(output.headers ?? {}), "x-blindfold-session": tag }
      } catch {
        // No tag: the proxy refuses the request's tool calls (sessions = "required").
      }
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
      // A delegation Blindfold relays as a verification request runs with its instruction: the
      // sub-agent reads the actions under review by their handles and answers one verdict each.
      if (input.tool === "task" && typeof verdict.prompt === "string") {
        if (!output.args) throw new Error(`Blindfold blocked this ${input.tool} call: no arguments to relay`)
        output.args.prompt = verdict.prompt
      }
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

    // Before every model call: agent-written history (text parts, `task` prompts and results) is
    // rewritten; a `task` call's prompt and result, which only the delegating agent reads, lose
    // Blindfold's verification instruction and handles; `metadata.model` of task parts is
    // dropped. Failing here fails the model call (closed).
    "experimental.chat.messages.transform": async (_input: Json, output: Json) => {
      type Slot = { get: () => string; set: (v: string) => void }
      const slots: Slot[] = []
      const delegated: Slot[] = []
      for (const m of output.messages ?? []) {
        for (const part of m.parts ?? []) {
          if (part.type === "text" && typeof part.text === "string") {
            slots.push({ get: () => part.text, set: (v) => (part.text = v) })
          } else if (part.type === "tool" && part.tool === "task" && part.state) {
            const state = part.state
            if (state.metadata) delete state.metadata.model
            if (typeof state.output === "string") {
              delegated.push({ get: () => state.output, set: (v) => (state.output = v) })
            }
            if (typeof state.input?.prompt === "string") {
              delegated.push({ get: () => state.input.prompt, set: (v) => (state.input.prompt = v) })
            }
          }
        }
      }
      if (slots.length === 0 && delegated.length === 0) return
      const res = await control.call("opencode.scrub", {
        texts: slots.map((s) => s.get()),
        delegated: delegated.map((s) => s.get()),
      })
      const put = (list: Slot[], out: Json) =>
        list.forEach((s, i) => {
          if (typeof out?.[i] !== "string") throw new Error("Blindfold did not rewrite the history")
          s.set(out[i])
        })
      put(slots, res?.texts)
      put(delegated, res?.delegated)
    },
  }
}
