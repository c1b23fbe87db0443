// An MCP Streamable HTTP server implementing every tool, resource and prompt the official
// conformance suite's server scenarios call (features.mjs), on the official TypeScript SDK:
// sessions, an in-memory event store for resumption (`Last-Event-ID`), a `retry` hint, a
// loopback-only Host/Origin check (DNS-rebinding defence), and CORS with preflights.
//
//   node server.mjs [--port N]     serves http://127.0.0.1:N/mcp (0 = any free port) and prints
//                                  "listening <port>" once it accepts connections.

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from './features.mjs';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const EXPOSED = 'mcp-session-id, mcp-protocol-version';
const ALLOWED = 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id';

/** The host part of a `Host` header or of an origin's authority, lower-cased, port dropped. */
function hostName(authority) {
  const a = authority.toLowerCase();
  if (a.startsWith('[')) return a.slice(0, a.indexOf(']') + 1);
  return a.split(':')[0];
}

function loopbackOrigin(origin) {
  try {
    return LOOPBACK.has(hostName(new URL(origin).host));
  } catch {
    return false;
  }
}

/** Refuses requests naming another host (403), answers CORS for loopback origins. */
function rebindingGuard(req, res, next) {
  const host = req.headers.host ?? '';
  const origin = req.headers.origin;
  if (!LOOPBACK.has(hostName(host)) || (origin !== undefined && !loopbackOrigin(origin))) {
    res.status(403).json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'host or origin not allowed' } });
    return;
  }
  if (origin !== undefined) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'origin');
    res.setHeader('access-control-expose-headers', EXPOSED);
  }
  if (req.method === 'OPTIONS') {
    res.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
    res.setHeader('access-control-allow-headers', ALLOWED);
    res.status(204).end();
    return;
  }
  next();
}

/** Events of one transport, kept for replay after `Last-Event-ID`; ids are `<stream>.<seq>`. */
function memoryEventStore() {
  const events = [];
  let seq = 0;
  return {
    async storeEvent(streamId, message) {
      seq += 1;
      const eventId = `${streamId}.${seq}`;
      events.push({ eventId, streamId, seq, message });
      return eventId;
    },
    async getStreamIdForEventId(eventId) {
      return events.find((e) => e.eventId === eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.find((e) => e.eventId === lastEventId);
      if (!last) return '';
      for (const e of events) {
        if (e.streamId === last.streamId && e.seq > last.seq) await send(e.eventId, e.message);
      }
      return last.streamId;
    },
  };
}

const sessions = new Map();

async function openSession(req, res) {
  const server = createServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: memoryEventStore(),
    retryInterval: 500,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    server.close().catch(() => {});
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

function sessionOf(req, res) {
  const transport = sessions.get(req.headers['mcp-session-id']);
  if (!transport) {
    res.status(404).json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'unknown or missing session' } });
  }
  return transport;
}

const app = express();
app.use(rebindingGuard);
app.use(express.json({ limit: '4mb' }));
app.post('/mcp', async (req, res) => {
  if (!req.headers['mcp-session-id'] && isInitializeRequest(req.body)) {
    await openSession(req, res);
    return;
  }
  const transport = sessionOf(req, res);
  if (transport) await transport.handleRequest(req, res, req.body);
});
for (const method of ['get', 'delete']) {
  app[method]('/mcp', async (req, res) => {
    const transport = sessionOf(req, res);
    if (transport) await transport.handleRequest(req, res);
  });
}

const portFlag = process.argv.indexOf('--port');
const port = portFlag > 0 ? Number(process.argv[portFlag + 1]) : 0;
const listener = http.createServer(app);
listener.listen(port, '127.0.0.1', () => {
  console.log(`listening ${listener.address().port}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(0));
}
