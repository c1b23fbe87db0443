// Blindfold's OpenClaw plugin: every tool call of the coordinator and of its sub-agents is
// decided by the Blindfold daemon next to the gateway before it runs; sub-agent spawns, answers
// and ends are reported for the authority trace (a refutation takes execute authority away); and
// every tool result is rewritten before the model reads it, so that no sub-agent identity
// (`modelApplied`, `resolvedModel`, `resolvedProvider`, model/vendor/tier words, agent ids in
// session keys) reaches the coordinator.
//
// Install: `blindfold init openclaw` (copies this folder to `.openclaw/plugins/blindfold/` and adds
// it to the project's `openclaw.json`), or add this folder to `plugins.load.paths`, allow it
// (`plugins.allow`), enable it (`plugins.entries.blindfold.enabled`) and let it see the
// conversation (`plugins.entries.blindfold.hooks.allowConversationAccess`). README.md says which
// hook changes the live context and which only the transcript.
//
// Settings, first found wins:
//   env BLINDFOLD_CONTROL_URL        (default ws://127.0.0.1:7700/v1/control)
//   env BLINDFOLD_ADAPTER_TOKEN      the adapter token itself, or
//   env BLINDFOLD_ADAPTER_TOKEN_FILE a file holding it (Blindfold's state dir: adapter.token)
//   env BLINDFOLD_TIMEOUT_MS         per request (default 5000; OpenClaw's hook budget is 15 s)
//   env BLINDFOLD_TRAJECTORY         pinned trajectory id (grants name it)
//   plugins.entries.blindfold.config {url, tokenFile, timeoutMs, trajectory, modelProxy}
// Without a pinned trajectory each root session is one trajectory (`openclaw-<hash of its key>`).
// With `modelProxy` (the provider reaches the model through Blindfold's model-API proxy) every
// agent run marks its system prompt with its session's tag (`openclaw.session`); the proxy decides
// the run's tool calls in that trajectory as that agent and removes the marker.
//
// Fail closed: a denial, a timeout, an unreachable daemon or any error blocks the tool call with
// the reason (`block` + `blockReason`; the model receives it as the tool's result), and a tool
// result that could not be rewritten is withheld from the model. A call Blindfold holds for human
// review (a pending item in its review queue) becomes OpenClaw's `requireApproval` offering only
// `allow-once` and `deny`, which the plugin answers itself through the Gateway once the review is
// decided in Blindfold: `allow-once` only when the approval's signed grant now lets exactly this
// call pass, `deny` on a rejection, an expiry or any error (OpenClaw denies an unanswered one).

import { createHash } from "node:crypto"
import { call, loadSettings } from "../blindfold-common/control.ts"

const WITHHELD = "[withheld by Blindfold: the result could not be checked]"
/** Tools that start a sub-agent: reported as a delegation, then allowed. */
const SPAWN_TOOLS = new Set(["sessions_spawn", "spawn_agent"])
/** OpenClaw's orchestration tools: they change no workspace state (the sub-agents they start are
 * gated on their own tool calls), so they run without a check. Everything else is decided. The
 * model-API proxy keeps the same list (`COORDINATION_TOOLS` in adapters/src/model_api/calls.rs). */
const COORDINATION = new Set([
  "sessions_yield",
  "agents_wait",
  "subagents",
  "agents_list",
  "sessions_list",
  "sessions_history",
  "session_status",
  "tool_search",
  "tool_describe",
])
/** OpenClaw's tool bridge (`tool_call {id, args}`): decided as the tool it calls (a dry run; OpenClaw
 * then runs the called tool through `before_tool_call` again, where the grant is consumed). */
const BRIDGE = "tool_call"
const VERIFY_WORDS = ["review", "verify", "check", "critique", "audit", "assess", "refute", "validate"]
/** `exec` parameters that change only how OpenClaw waits for or shows the command. */
const EXEC_PRESENTATION = new Set(["title", "yieldMs", "background", "timeoutSeconds", "pty"])
/** The only answers a held call's approval offers (never `allow-always`: a grant covers one call). */
const APPROVAL_DECISIONS = ["allow-once", "deny"]
/** OpenClaw's cap on an approval's wait. */
const MAX_APPROVAL_MS = 600_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Spawn {
  agent: string
  intent: "scope" | "verify"
  task: string
  /** The spawn's tool call id: the channel its answer takes back to Blindfold (a verdict for a
   * handle Blindfold issued counts only on it). */
  channel?: string
}

/** Why the coordinator delegates: asking to review, verify or check is a verify request. */
export function intentOf(task: string): "scope" | "verify" {
  const words = task.toLowerCase().split(/[^a-z0-9]+/)
  return words.some((w) => VERIFY_WORDS.some((v) => w.startsWith(v))) ? "verify" : "scope"
}

/** Commands an answer proposes: inline code spans and fenced lines of more than one word. */
export function proposalsIn(text: string, prefix: string): any[] {
  const commands: string[] = []
  const fence = /```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g
  for (const m of text.matchAll(fence)) {
    if (m[1] !== undefined) commands.push(...m[1].split("\n").map((l) => l.trim()))
    else commands.push(m[2].trim())
  }
  return commands
    .filter((c) => c.split(/\s+/).length > 1 && !c.startsWith("#"))
    .map((command, i) => ({ id: `${prefix}-${i + 1}`, tool: "bash", args: { command } }))
}

/** An OpenClaw tool call in the registry's words (SPEC §11): `exec` is `bash {command}`, `write`
 * is `write_file`, `edit` is `edit_file` (its edits, as JSON, are the artifact), `read` is
 * `read_file`, `ls` is `list_directory`; other tools keep their name (unknown ones are effectful). */
export function canonical(tool: string, params: Record<string, unknown>): [string, Record<string, unknown>] {
  switch (tool) {
    case "exec": {
      const args: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(params)) if (!EXEC_PRESENTATION.has(k)) args[k] = v
      return ["bash", args]
    }
    case "write":
      return ["write_file", { ...params }]
    case "read":
      return ["read_file", { ...params }]
    case "ls":
      return ["list_directory", { ...params }]
    case "edit": {
      const { path, ...rest } = params
      return ["edit_file", { path, content: JSON.stringify(rest) }]
    }
    default:
      return [tool, { ...params }]
  }
}

/** The bridged tool (`tool_call {id: "openclaw:core:exec", args}` is `exec` with `args`). */
export function unbridge(tool: string, params: any): [string, Record<string, unknown>] {
  if (tool !== BRIDGE) return [tool, params ?? {}]
  const id = String(params?.id ?? "")
  const name = id.includes(":") ? id.slice(id.lastIndexOf(":") + 1) : id
  const args = params?.args && typeof params.args === "object" ? params.args : {}
  return [name, args]
}

/** Whether OpenClaw has someone to show an approval to in this run (a requester channel or a
 * reviewing device; non-interactive CLI runs have none). Without one, a held
 * call is blocked with Blindfold's reason rather than OpenClaw's "approval unavailable". */
function canAsk(ctx: any): boolean {
  const channel = String(ctx?.requester?.channel ?? ctx?.turnSourceChannel ?? "").trim()
  return channel !== "" || String(ctx?.approvalReviewerDeviceId ?? "").trim() !== ""
}

/** The first object anywhere in a tool result (also inside JSON carried as text, as OpenClaw
 * returns results through the bridge) for which `pick` gives something. */
function findIn<T>(value: any, pick: (o: any) => T | undefined, depth = 0): T | undefined {
  if (depth > 6 || value === null || value === undefined) return undefined
  if (typeof value === "string") {
    const t = value.trim()
    if (!t.startsWith("{")) return undefined
    try {
      return findIn(JSON.parse(t), pick, depth + 1)
    } catch {
      return undefined
    }
  }
  if (typeof value !== "object") return undefined
  const here = Array.isArray(value) ? undefined : pick(value)
  if (here !== undefined) return here
  for (const v of Array.isArray(value) ? value : Object.values(value)) {
    const found = findIn(v, pick, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/** The first `completed` list anywhere in a tool result (agents_wait, also through the bridge). */
function completedRuns(value: any): any[] {
  return findIn(value, (o) => (Array.isArray(o.completed) && o.completed.length ? (o.completed as any[]) : undefined)) ?? []
}

/** A spawn receipt's run id and child session key, anywhere in a tool result. */
function receiptIn(value: any): { runId?: string; childSessionKey?: string } | undefined {
  return findIn(value, (o) => (typeof o.runId === "string" && typeof o.childSessionKey === "string" ? o : undefined))
}

/** The agent id of an `agent:<id>:subagent:…` session key. */
function agentOfKey(key: unknown): string | undefined {
  const m = /^agent:([^:]+):subagent:/.exec(String(key ?? ""))
  return m ? m[1] : undefined
}

/** The text a tool result shows the model (its text parts), or the value as JSON. */
function resultText(result: any): string {
  if (typeof result === "string") return result
  const parts = Array.isArray(result?.content) ? result.content : []
  const texts = parts.filter((p: any) => p?.type === "text" && typeof p.text === "string").map((p: any) => p.text)
  return texts.length ? texts.join("\n") : JSON.stringify(result ?? null)
}

const CHILD_RESULT = /<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>([\s\S]*?)<<<END_UNTRUSTED_CHILD_RESULT>>>/
const SESSION_LINE = /^session_key:\s*(\S+)/m

export default {
  id: "blindfold",
  name: "Blindfold",
  description: "Pre-action verification, signed grants and identity-blind sub-agent results.",
  register(api: any) {
    const s = loadSettings(api.pluginConfig)
    const approvalMs = Math.min(Number(api.pluginConfig?.approvalTimeoutMs ?? MAX_APPROVAL_MS), MAX_APPROVAL_MS)
    const gateway = api.runtime?.gateway
    const parentOf = new Map<string, string>()
    const bySession = new Map<string, Spawn>()
    const byRun = new Map<string, Spawn>()
    const pending: Spawn[] = []
    const tasksSeen = new Set<string>()
    const viaProxy = Boolean(api.pluginConfig?.modelProxy)
    const tags = new Map<string, string>()
    /** Spawns learned from the spawn receipts the middleware rewrites, by run id and child session
     * key: OpenClaw may run the middleware in a registration of its own, which sees no spawn hook. */
    const receipts = new Map<string, Spawn>()
    const answeredOnce = new Set<string>()
    let reports: Promise<unknown> = Promise.resolve()

    const rootOf = (key: string) => {
      let k = key
      for (let i = 0; i < 16 && parentOf.has(k); i++) k = parentOf.get(k) as string
      return k
    }
    const trajectoryOf = (key: string | undefined) =>
      s.trajectory ||
      `openclaw-${createHash("sha256")
        .update(rootOf(key ?? ""))
        .digest("hex")
        .slice(0, 16)}`
    const actorOf = (key: string | undefined) =>
      bySession.get(key ?? "")?.agent ?? (String(key ?? "").includes(":subagent:") ? "unknown-subagent" : "coordinator")
    /** Reports in order; a later gate waits for them, so evidence is in before the decision. */
    const report = (trajectory: string, event: any) => {
      const next = reports.then(() => call(s, "report_event", { trajectory, event }))
      reports = next.catch(() => undefined)
      return next
    }

    /** The pending OpenClaw approval of `toolCallId` (it appears once the hook has returned). */
    const approvalOf = async (toolCallId: string, until: number) => {
      while (Date.now() < until) {
        const listed = await gateway.request("plugin.approval.list", {})
        const items = Array.isArray(listed) ? listed : (listed?.approvals ?? listed?.items ?? [])
        const mine = items.find((a: any) => (a?.request?.toolCallId ?? a?.toolCallId) === toolCallId)
        if (mine?.id) return String(mine.id)
        await sleep(500)
      }
      throw new Error(`no pending approval for ${toolCallId}`)
    }

    /** Answers OpenClaw's approval of a held call once Blindfold's review `review` is decided:
     * `allow-once` only when Blindfold now allows exactly `check` (consuming the review's grant). */
    const settle = async (review: string, toolCallId: string, check: any): Promise<string> => {
      const until = Date.now() + approvalMs
      let status = "pending"
      while (status === "pending" && Date.now() < until) {
        const r = await call(s, "openclaw.review_status", { id: review }).catch(() => undefined)
        status = String(r?.status ?? "pending")
        if (status === "pending") await sleep(1000)
      }
      let decision = "deny"
      if (status === "approved") {
        const again = await call(s, "check_action", { ...check, consume: true }).catch(() => undefined)
        if (again?.allowed === true) decision = "allow-once"
      }
      const id = await approvalOf(toolCallId, until)
      await gateway.request("plugin.approval.resolve", { id, decision })
      return decision
    }

    api.on(
      "before_tool_call",
      async (event: any, ctx: any) => {
        try {
          await reports
          const key = ctx?.sessionKey
          const trajectory = trajectoryOf(key)
          const [tool, inner] = unbridge(String(event.toolName ?? ""), event.params)
          const mapped = await call(s, "openclaw.unalias", { trajectory, value: event.params ?? {} })
          const params = mapped?.edits > 0 ? mapped.value : undefined
          const [, realInner] = params ? unbridge(String(event.toolName ?? ""), params) : [tool, inner]
          const bridged = event.toolName === BRIDGE
          // The bridge's inner call comes through this hook again: the delegation is recorded
          // there, and a grant is consumed there (the bridge is only a dry run).
          if (bridged && (SPAWN_TOOLS.has(tool) || COORDINATION.has(tool))) return params ? { params } : undefined
          if (SPAWN_TOOLS.has(tool)) {
            const task = String(realInner.task ?? "")
            const agent = String(realInner.agentId ?? realInner.label ?? ctx?.agentId ?? "subagent")
            const channel = String(event.toolCallId ?? "") || undefined
            const spawn: Spawn = { agent, intent: intentOf(task), task, channel }
            pending.push(spawn)
            if (!channel) {
              await report(trajectory, { kind: "delegate", to: agent, intent: spawn.intent, text: task })
              return params ? { params } : undefined
            }
            // On its channel: a spawn asking to verify a pending action gets Blindfold's verdict
            // instruction with the child's task.
            await reports
            const d = await call(s, "openclaw.delegate", { trajectory, to: agent, intent: spawn.intent, text: task, call_id: channel })
            if (typeof d?.instruction !== "string") return params ? { params } : undefined
            const asked = `${task}\n\n${d.instruction}`
            return { params: { ...(params ?? event.params ?? {}), task: asked } }
          }
          if (COORDINATION.has(tool)) return params ? { params } : undefined
          const [name, args] = canonical(tool, realInner)
          const check = {
            trajectory,
            actor: actorOf(key),
            tool: name,
            args,
            call_id: String(event.toolCallId ?? "") || undefined,
          }
          const v = await call(s, "check_action", { ...check, consume: !bridged })
          if (!v || v.allowed !== true) {
            const d = v?.decision
            const reason =
              v?.refusal?.text ?? (d ? `Blindfold: ${d.decision} (${d.reason}, ${d.check})` : "Blindfold: denied")
            const toolCallId = String(event.toolCallId ?? "")
            const held = d?.decision === "review" && typeof v?.review_id === "string"
            if (held && !bridged && toolCallId && gateway && approvalMs > 0 && canAsk(ctx)) {
              const review = v.review_id
              const answered = settle(review, toolCallId, check).catch(() => "deny")
              return {
                requireApproval: {
                  title: `Blindfold review ${review}`.slice(0, 80),
                  description: `Blindfold answers this once review ${review} is decided (blindfold review approve ${review} --key KEY: a grant for exactly this call; or blindfold review reject ${review}).\n${reason}`.slice(0, 512),
                  severity: "critical",
                  timeoutMs: approvalMs,
                  allowedDecisions: [...APPROVAL_DECISIONS],
                  onResolution: () => answered,
                },
              }
            }
            return { block: true, blockReason: reason }
          }
          return params ? { params } : undefined
        } catch (e: any) {
          return { block: true, blockReason: `Blindfold: denied (fail closed): ${e?.message ?? e}` }
        }
      },
      { priority: 1000 },
    )

    api.on("subagent_spawned", async (event: any, ctx: any) => {
      const child = String(event.childSessionKey ?? "")
      if (ctx?.requesterSessionKey) parentOf.set(child, String(ctx.requesterSessionKey))
      const i = pending.findIndex((p) => p.agent === event.agentId || p.agent === event.label)
      const spawn = i >= 0 ? pending.splice(i, 1)[0] : { agent: String(event.agentId ?? "subagent"), intent: "scope" as const, task: "" }
      bySession.set(child, spawn)
      if (event.runId) byRun.set(String(event.runId), spawn)
      const card = {
        event: "subagent_spawned",
        childSessionKey: child,
        runId: event.runId,
        mode: event.mode,
        label: event.label,
        resolvedModel: event.resolvedModel,
        resolvedProvider: event.resolvedProvider,
      }
      await report(trajectoryOf(child), { kind: "card", agent: spawn.agent, card }).catch(() => undefined)
    })

    api.on("subagent_ended", async (event: any) => {
      const child = String(event.targetSessionKey ?? "")
      const spawn = bySession.get(child) ?? byRun.get(String(event.runId ?? ""))
      const card = {
        event: "subagent_ended",
        targetSessionKey: child,
        runId: event.runId,
        outcome: event.outcome,
        reason: event.reason,
        error: event.error,
        endedAt: event.endedAt,
      }
      await report(trajectoryOf(child), { kind: "card", agent: spawn?.agent ?? "unknown-subagent", card }).catch(
        () => undefined,
      )
    })

    /** A child's final answer reaches its requester: a `response` (scoped work proposes the
     * commands in its code spans), once per answer whichever hook sees it first. */
    const answered = (trajectory: string, spawn: Spawn | undefined, id: string, text: string) => {
      const once = `${trajectory}\u0000${id}`
      if (!spawn || !text || answeredOnce.has(once)) return Promise.resolve()
      if (id !== "announce" && id !== "run") answeredOnce.add(once)
      const proposals = spawn.intent === "scope" ? proposalsIn(text, id) : []
      // On the spawn's channel (the daemon knows it from the spawn when this hook's copy of the
      // plugin does not): a verdict in the answer counts only there.
      const answer = { trajectory, from: spawn.agent, text, proposals, call_id: spawn.channel }
      const next = reports.then(() => call(s, "openclaw.answer", answer))
      reports = next.catch(() => undefined)
      return next.catch(() => undefined)
    }

    /** The finished children's answers in an `agents_wait` result, each that child's response. */
    const childAnswers = async (trajectory: string, result: any) => {
      for (const run of completedRuns(result)) {
        const [runId, key] = [String(run?.runId ?? ""), String(run?.sessionKey ?? "")]
        const known = [byRun.get(runId), bySession.get(key), receipts.get(runId), receipts.get(key)]
        // The one that knows the spawn's channel first: a verdict counts only on it.
        const spawn = known.find((k) => k?.channel) ?? known.find((k) => k)
        const text = typeof run?.result === "string" && run?.status === "done" ? run.result : ""
        await answered(trajectory, spawn, String(run?.runId ?? "run"), text)
      }
    }

    // Every tool result is evidence the caller observed (channel C2); an `agents_wait` result
    // also carries the children's answers. OpenClaw calls this hook for the bridge and again for
    // the tool it called: the called tool's call is the one reported.
    api.on("after_tool_call", async (event: any, ctx: any) => {
      if (event.toolName === BRIDGE) return // the called tool reports its own result
      const tool = String(event.toolName ?? "")
      const trajectory = trajectoryOf(ctx?.sessionKey)
      const content = resultText(event.result ?? event.error ?? "")
      const call_id = String(event.toolCallId ?? "") || undefined
      await report(trajectory, { kind: "tool_result", tool: canonical(tool, {})[0], content, call_id }).catch(
        () => undefined,
      )
    })

    // Announced completions (children spawned without `collect`) arrive as the requester's
    // next run; its first ordinary prompt is the trajectory's task.
    api.on("before_agent_run", async (event: any, ctx: any) => {
      const prompt = String(event?.prompt ?? "")
      const trajectory = trajectoryOf(ctx?.sessionKey)
      const child = CHILD_RESULT.exec(prompt)
      if (child) {
        const key = SESSION_LINE.exec(prompt)?.[1] ?? ""
        await answered(trajectory, bySession.get(key), key || "announce", child[1].trim())
      } else if (!tasksSeen.has(trajectory) && !String(ctx?.sessionKey ?? "").includes(":subagent:")) {
        tasksSeen.add(trajectory)
        await report(trajectory, { kind: "task", text: prompt }).catch(() => undefined)
      }
      return undefined
    })

    // The session tag on every agent run's system prompt (the model-API proxy reads and removes
    // it); without one the proxy refuses the run's tool calls.
    api.on("before_prompt_build", async (_event: any, ctx: any) => {
      if (!viaProxy) return undefined
      const key = String(ctx?.sessionKey ?? "")
      const trajectory = trajectoryOf(key)
      const actor = actorOf(key)
      const cacheKey = `${trajectory}\u0000${actor}`
      try {
        let tag = tags.get(cacheKey)
        if (!tag) {
          const res = await call(s, "openclaw.session", { trajectory, actor })
          if (typeof res?.tag !== "string") return undefined
          tag = res.tag as string
          tags.set(cacheKey, tag)
        }
        return { appendSystemContext: `[[blindfold-session:${tag}]]` }
      } catch {
        return undefined
      }
    })

    // Live context: runs before OpenClaw feeds a tool result back into the model. The children's
    // answers an `agents_wait` result carries are reported here first (OpenClaw does not wait for
    // `after_tool_call`): the evidence is in before the coordinator's next model request, which
    // the model-API proxy decides.
    api.registerAgentToolResultMiddleware(
      async (event: any, ctx: any) => {
        try {
          const [tool, inner] = unbridge(String(event?.toolName ?? ""), event?.args)
          if (SPAWN_TOOLS.has(tool)) {
            const r = receiptIn(event?.result)
            const agent = agentOfKey(r?.childSessionKey) ?? String(inner.agentId ?? inner.label ?? "subagent")
            const task = String(inner.task ?? "")
            const spawn: Spawn = { agent, intent: intentOf(task), task }
            for (const k of [r?.runId, r?.childSessionKey]) if (k) receipts.set(String(k), spawn)
          }
          if (tool === "agents_wait") await childAnswers(trajectoryOf(ctx?.sessionKey), event.result)
          await reports
          const res = await call(s, "openclaw.scrub", { trajectory: trajectoryOf(ctx?.sessionKey), value: event.result })
          if (!res || typeof res.value !== "object" || res.value === null) throw new Error("bad scrub answer")
          return { result: res.value }
        } catch {
          return { result: { content: [{ type: "text", text: WITHHELD }], details: {} } }
        }
      },
      { runtimes: ["openclaw"] },
    )
  },
}
