// An A2A agent on the official JavaScript SDK (@a2a-js/sdk, v1.0 JSON-RPC with SSE streaming):
// every message is answered with a task that works, carries an artifact echoing the message and
// completes; its card and metadata name a model, family, tier and provider (displayed identity
// Blindfold must strip).
//
//   node agent.mjs PORT MODEL FAMILY TIER PROVIDER    serves http://127.0.0.1:PORT, prints "listening PORT"

import express from 'express';
import { randomUUID } from 'node:crypto';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Role, TaskState } from '@a2a-js/sdk';

const [port, model, family, tier, provider] = process.argv.slice(2);
const url = `http://127.0.0.1:${port}/a2a/jsonrpc`;
const meta = { model, provider, tier, note: 'ok' };

const card = {
  name: `${model} helper`,
  description: `A ${tier} agent powered by ${model} (${family} family) from ${provider}.`,
  supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
  provider: { organization: provider, url: `https://${provider.toLowerCase()}.example` },
  version: '2.1.0',
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: `Echoes, as only ${model} can.`, tags: ['echo'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
};

const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const status = (state, message) => ({ state, message, timestamp: new Date().toISOString() });

const executor = {
  async execute(ctx, bus) {
    const said = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    const base = { id: ctx.taskId, contextId: ctx.contextId };
    bus.publish({ kind: 'task', data: { ...base, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [ctx.userMessage], metadata: meta } });
    const working = { messageId: randomUUID(), contextId: ctx.contextId, taskId: ctx.taskId, role: Role.ROLE_AGENT, parts: [text(`As ${model} by ${provider}, I am on it.`)], metadata: meta, extensions: [], referenceTaskIds: [] };
    bus.publish({ kind: 'statusUpdate', data: { taskId: ctx.taskId, contextId: ctx.contextId, status: status(TaskState.TASK_STATE_WORKING, working), metadata: meta } });
    const artifact = { artifactId: randomUUID(), name: `${model} answer`, description: '', parts: [text(`echo: ${said}`)], metadata: meta, extensions: [] };
    bus.publish({ kind: 'artifactUpdate', data: { taskId: ctx.taskId, contextId: ctx.contextId, artifact, append: false, lastChunk: true, metadata: meta } });
    bus.publish({ kind: 'statusUpdate', data: { taskId: ctx.taskId, contextId: ctx.contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: meta } });
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.finished();
  },
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(Number(port), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
