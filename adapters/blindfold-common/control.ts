// Blindfold's control-API client and settings, shared by every adapter (the OpenCode plugin, the
// Pi extension, the OpenClaw plugin). `blindfold init …` installs it next to the adapter as
// `../blindfold-common/control.ts`, the path the adapters import it from.
//
// The client: JSON-RPC over a WebSocket with a bearer token, built on node:http alone so it runs
// on every Node the harnesses support (Node 20 has no WebSocket client). One connection per
// request: simple, and loopback makes it cheap. Every failure (refused upgrade, timeout, closed
// socket, bad frame, RPC error) rejects.

import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import type { Socket } from "node:net"

export interface ControlSettings {
  url: string
  token: string
  timeoutMs: number
}

/** The adapter's settings, first found wins:
 *   env BLINDFOLD_CONTROL_URL        (default ws://127.0.0.1:7700/v1/control)
 *   env BLINDFOLD_ADAPTER_TOKEN      the adapter token itself, or
 *   env BLINDFOLD_ADAPTER_TOKEN_FILE a file holding it (Blindfold's state dir: adapter.token)
 *   env BLINDFOLD_TIMEOUT_MS         per request (default 5000)
 *   env BLINDFOLD_TRAJECTORY         pinned trajectory id (grants name it; empty: none)
 * then `file`, the adapter's settings file or plugin config: {url, tokenFile, timeoutMs,
 * trajectory}. A token that cannot be read is empty (every call then fails closed). */
export function loadSettings(file: any): ControlSettings & { trajectory: string } {
  const f = file && typeof file === "object" ? file : {}
  const env = process.env
  const tokenFile = env.BLINDFOLD_ADAPTER_TOKEN_FILE ?? f.tokenFile
  let token = env.BLINDFOLD_ADAPTER_TOKEN ?? ""
  if (!token && tokenFile) {
    try {
      token = readFileSync(tokenFile, "utf8").trim()
    } catch {
      token = ""
    }
  }
  return {
    url: env.BLINDFOLD_CONTROL_URL ?? f.url ?? "ws://127.0.0.1:7700/v1/control",
    token,
    timeoutMs: Number(env.BLINDFOLD_TIMEOUT_MS ?? f.timeoutMs ?? 5000),
    trajectory: env.BLINDFOLD_TRAJECTORY ?? f.trajectory ?? "",
  }
}

/** A JSON settings file (`.opencode/blindfold.json`, `.pi/blindfold.json`), or `{}` when it is
 * missing or unreadable. */
export function readSettingsFile(path: string): any {
  try {
    return JSON.parse(readFileSync(path, "utf8"))
  } catch {
    return {}
  }
}

let nextId = 1

/** Calls `method` with `params` and resolves with the JSON-RPC result. */
export function call(settings: ControlSettings, method: string, params: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    if (!settings.token) return reject(new Error("no adapter token configured"))
    let url: URL
    try {
      url = new URL(settings.url.replace(/^ws/, "http"))
    } catch {
      return reject(new Error(`bad control url ${settings.url}`))
    }
    let socket: Socket | undefined
    let done = false
    const finish = (err: Error | undefined, value?: any) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket?.destroy()
      req.destroy()
      if (err) reject(err)
      else resolve(value)
    }
    const timer = setTimeout(() => finish(new Error(`no answer within ${settings.timeoutMs} ms`)), settings.timeoutMs)
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      headers: {
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": randomBytes(16).toString("base64"),
        Authorization: `Bearer ${settings.token}`,
      },
    })
    req.on("error", (e) => finish(new Error(`unreachable: ${e.message}`)))
    req.on("response", (res) => finish(new Error(`control API refused: HTTP ${res.statusCode}`)))
    req.on("upgrade", (_res, sock: Socket, head: Buffer) => {
      socket = sock
      const id = nextId++
      sock.write(frame(JSON.stringify({ jsonrpc: "2.0", id, method, params })))
      let buf = head
      const onData = (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk])
        const parsed = parseFrame(buf)
        if (!parsed) return
        if (parsed.opcode !== 1) return finish(new Error(`unexpected frame opcode ${parsed.opcode}`))
        let msg: any
        try {
          msg = JSON.parse(parsed.payload.toString("utf8"))
        } catch {
          return finish(new Error("control API sent a bad frame"))
        }
        if (msg.id !== id) return finish(new Error("control API answered another request"))
        if (msg.error) return finish(new Error(`${msg.error.message} (${msg.error.code})`))
        finish(undefined, msg.result)
      }
      sock.on("data", onData)
      sock.on("error", (e) => finish(new Error(`connection failed: ${e.message}`)))
      sock.on("close", () => finish(new Error("connection closed before an answer")))
      if (head.length > 0) onData(Buffer.alloc(0))
    })
    req.end()
  })
}

/** A masked, unfragmented text frame (clients must mask, RFC 6455 §5.3). */
function frame(text: string): Buffer {
  const payload = Buffer.from(text, "utf8")
  const len = payload.length
  const header = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10)
  header[0] = 0x81
  if (len < 126) header[1] = 0x80 | len
  else if (len < 65536) {
    header[1] = 0x80 | 126
    header.writeUInt16BE(len, 2)
  } else {
    header[1] = 0x80 | 127
    header.writeBigUInt64BE(BigInt(len), 2)
  }
  const mask = randomBytes(4)
  const masked = Buffer.alloc(len)
  for (let i = 0; i < len; i++) masked[i] = payload[i] ^ mask[i % 4]
  return Buffer.concat([header, mask, masked])
}

/** One complete server frame at the start of `buf` (servers do not mask), or undefined. */
function parseFrame(buf: Buffer): { opcode: number; payload: Buffer } | undefined {
  if (buf.length < 2) return undefined
  const opcode = buf[0] & 0x0f
  let len = buf[1] & 0x7f
  let offset = 2
  if (len === 126) {
    if (buf.length < 4) return undefined
    len = buf.readUInt16BE(2)
    offset = 4
  } else if (len === 127) {
    if (buf.length < 10) return undefined
    len = Number(buf.readBigUInt64BE(2))
    offset = 10
  }
  if (buf.length < offset + len) return undefined
  return { opcode, payload: buf.subarray(offset, offset + len) }
}
