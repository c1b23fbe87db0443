// An A2A client on the official JavaScript SDK (@a2a-js/sdk): discovers the agent from its card
// at CARD_URL (the SDK resolves its default card path against the host root, so a card below a
// path is named in full), sends one message (blocking), then one as a stream, and prints what it
// received as one JSON object: {card, sent, streamed: [events]}.
//
//   node client.mjs CARD_URL TEXT

import { randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role } from '@a2a-js/sdk';

const [cardUrl, said] = process.argv.slice(2);
const message = () => ({
  messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: said }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined, extensions: [], referenceTaskIds: [],
});
const request = () => ({ tenant: '', message: message(), configuration: undefined, metadata: undefined });

const client = await new ClientFactory().createFromUrl(cardUrl, cardUrl);
const card = await client.getAgentCard();
const sent = await client.sendMessage(request());
const streamed = [];
for await (const event of client.sendMessageStream(request())) streamed.push(event);
const plain = (v) => JSON.parse(JSON.stringify(v, (_, x) => (x instanceof Buffer ? x.toString('base64') : x)));
console.log(JSON.stringify(plain({ card, sent, streamed })));
