// The MCP features the conformance suite's server scenarios call, on the official TypeScript
// SDK's low-level `Server`: the `test_*` tools, the `test://` resources and templates, the
// `test_*` prompts and argument completion. Server-to-client requests (sampling, elicitation)
// go out on the session's standalone GET stream (no related request), as the spec allows, so a
// relay that opens that stream late loses them.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

// A 1x1 teal PNG (zlib-compressed by hand) and a WAV file holding one silent sample.
const PNG_PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNQSDgAAAHkAUGcFuGgAAAAAElFTkSuQmCC';
const WAV_SILENCE = Buffer.concat([
  Buffer.from('RIFF'), u32(38), Buffer.from('WAVEfmt '), u32(16), u16(1), u16(1),
  u32(8000), u32(16000), u16(2), u16(16), Buffer.from('data'), u32(2), u16(0),
]).toString('base64');

function u32(n) { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; }
function u16(n) { const b = Buffer.alloc(2); b.writeUInt16LE(n); return b; }

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const text = (t) => ({ type: 'text', text: t });
const noArgs = { type: 'object', properties: {} };

/** Tool definitions: name → { description, inputSchema, run(args, extra, server) }. */
const TOOLS = {
  test_simple_text: {
    description: 'Answers with one text block',
    run: async () => ({ content: [text('This is a simple text response for testing.')] }),
  },
  test_image_content: {
    description: 'Answers with a PNG image',
    run: async () => ({ content: [{ type: 'image', data: PNG_PIXEL, mimeType: 'image/png' }] }),
  },
  test_audio_content: {
    description: 'Answers with a WAV clip',
    run: async () => ({ content: [{ type: 'audio', data: WAV_SILENCE, mimeType: 'audio/wav' }] }),
  },
  test_embedded_resource: {
    description: 'Answers with an embedded text resource',
    run: async () => ({
      content: [{
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      }],
    }),
  },
  test_multiple_content_types: {
    description: 'Answers with text, an image and a JSON resource',
    run: async () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG_PIXEL, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
        },
      ],
    }),
  },
  test_tool_with_logging: {
    description: 'Logs three messages while it runs',
    run: async (_args, extra) => {
      const lines = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
      for (const [i, line] of lines.entries()) {
        if (i > 0) await sleep(50);
        await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: line } });
      }
      return { content: [text('logged three messages')] };
    },
  },
  test_tool_with_progress: {
    description: 'Reports progress 0, 50 and 100 of 100',
    run: async (_args, extra) => {
      const token = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(50);
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
        }
      }
      return { content: [text('progress reported')] };
    },
  },
  test_error_handling: {
    description: 'Always fails',
    run: async () => ({ isError: true, content: [text('This tool intentionally returns an error for testing')] }),
  },
  test_reconnection: {
    description: 'Closes its SSE stream before answering; the answer waits in the event store',
    run: async (_args, extra) => {
      extra.closeSSEStream?.();
      await sleep(100);
      return { content: [text('answered after the stream was closed')] };
    },
  },
  test_sampling: {
    description: 'Asks the client for a model completion of `prompt`',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    run: async (args, _extra, server) => {
      requireCapability(server, 'sampling');
      const result = await server.request({
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: text(String(args.prompt)) }], maxTokens: 100 },
      }, CreateMessageResultSchema);
      return { content: [text(`LLM response: ${result.content?.text ?? ''}`)] };
    },
  },
  test_elicitation: {
    description: 'Asks the user for a name and an email address',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    run: async (args, _extra, server) => elicit(server, String(args.message), {
      username: { type: 'string', description: "User's response" },
      email: { type: 'string', description: "User's email address" },
    }, ['username', 'email'], 'User response'),
  },
  test_elicitation_sep1034_defaults: {
    description: 'Asks for a form whose fields all carry defaults',
    run: async (_args, _extra, server) => elicit(server, 'Check the prefilled fields', {
      name: { type: 'string', description: 'User name', default: 'John Doe' },
      age: { type: 'integer', description: 'User age', default: 30 },
      score: { type: 'number', description: 'User score', default: 95.5 },
      status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', description: 'Verification status', default: true },
    }, [], 'Elicitation completed'),
  },
  test_elicitation_sep1330_enums: {
    description: 'Asks for a form with every enum shape',
    run: async (_args, _extra, server) => elicit(server, 'Pick some options', {
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: {
        type: 'string',
        oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }],
      },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: {
        type: 'array',
        items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] },
      },
    }, [], 'Elicitation completed'),
  },
  json_schema_2020_12_tool: {
    description: 'Has an input schema written in JSON Schema 2020-12',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    run: async (args) => ({ content: [text(`received ${JSON.stringify(args)}`)] }),
  },
};

function requireCapability(server, name) {
  if (!server.getClientCapabilities()?.[name]) {
    throw new McpError(ErrorCode.InvalidRequest, `the client did not declare the ${name} capability`);
  }
}

async function elicit(server, message, properties, required, label) {
  requireCapability(server, 'elicitation');
  const result = await server.request({
    method: 'elicitation/create',
    params: { message, requestedSchema: { type: 'object', properties, required } },
  }, ElicitResultSchema);
  return { content: [text(`${label}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)] };
}

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'A fixed text', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A fixed PNG', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A text one may subscribe to', mimeType: 'text/plain' },
];
const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

function readResource(uri) {
  switch (uri) {
    case 'test://static-text':
      return { uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' };
    case 'test://static-binary':
      return { uri, mimeType: 'image/png', blob: PNG_PIXEL };
    case 'test://watched-resource':
      return { uri, mimeType: 'text/plain', text: 'The watched resource, unchanged.' };
  }
  const templated = TEMPLATE.exec(uri);
  if (templated) {
    const id = templated[1];
    return { uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) };
  }
  throw new McpError(ErrorCode.InvalidParams, `no resource ${uri}`);
}

const PROMPTS = {
  test_simple_prompt: {
    description: 'A prompt without arguments',
    arguments: [],
    messages: () => [{ role: 'user', content: text('This is a simple prompt for testing.') }],
  },
  test_prompt_with_arguments: {
    description: 'A prompt with two arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    messages: (a) => [{ role: 'user', content: text(`Prompt with arguments: arg1='${a.arg1}', arg2='${a.arg2}'`) }],
  },
  test_prompt_with_embedded_resource: {
    description: 'A prompt embedding the resource it is given',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    messages: (a) => [
      { role: 'user', content: { type: 'resource', resource: { uri: a.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
  },
  test_prompt_with_image: {
    description: 'A prompt carrying an image',
    arguments: [],
    messages: () => [
      { role: 'user', content: { type: 'image', data: PNG_PIXEL, mimeType: 'image/png' } },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  },
};

const COMPLETIONS = ['paris', 'park', 'party', 'test', 'testing', 'tested'];

/** A fresh MCP server for one session, every feature above registered. */
export function createServer() {
  const server = new Server(
    { name: 'blindfold-conformance-peer', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
  const subscriptions = new Set();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: Object.entries(TOOLS).map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema ?? noArgs })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = TOOLS[request.params.name];
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool ${request.params.name}`);
    return tool.run(request.params.arguments ?? {}, extra, server);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({ contents: [readResource(request.params.uri)] }));
  server.setRequestHandler(SubscribeRequestSchema, async (request) => { subscriptions.add(request.params.uri); return {}; });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => { subscriptions.delete(request.params.uri); return {}; });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: Object.entries(PROMPTS).map(([name, p]) => ({ name, description: p.description, arguments: p.arguments })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const prompt = PROMPTS[request.params.name];
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `no prompt ${request.params.name}`);
    return { messages: prompt.messages(request.params.arguments ?? {}) };
  });
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const prefix = String(request.params.argument?.value ?? '');
    const values = COMPLETIONS.filter((v) => v.startsWith(prefix));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}
