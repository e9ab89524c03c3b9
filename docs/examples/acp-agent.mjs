#!/usr/bin/env node
// A complete ACP agent for contactor, built with the ACP SDK (@agentclientprotocol/sdk), as a starting point
// for your own. It speaks ACP over stdio: the bridge starts it, sends `initialize`, `session/new`, then one
// `session/prompt` per turn. What each prompt does (docs/writing-agents.md explains each part):
//   - a prompt containing "write": asks permission for a tool call first (session/request_permission), the
//     way a coding agent asks before editing a file, then says what it was told;
//   - a prompt containing "choose": ends its reply with the decision block, so the task waits for the
//     requester's choice; the choice comes back as the next turn ("The requester chose: …");
//   - anything else: echoed back, streamed in two chunks.
// Config (config.yaml):  agents: { example: { kind: acp, command: [node, /path/to/acp-agent.mjs] } }
import * as acp from '@agentclientprotocol/sdk';
import { Readable, Writable } from 'node:stream';

/** The bridge appends the decision contract to each prompt (docs/writing-agents.md); this is the request before it. */
function requestOf(text) {
  const contract = text.indexOf('\n\n---\nIf you cannot continue without the requester choosing');
  return contract === -1 ? text : text.slice(0, contract);
}

async function say(client, sessionId, text) {
  await client.notify(acp.methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
  });
}

async function askPermission(client, sessionId, cwd) {
  const toolCall = {
    toolCallId: 'write-1',
    title: 'Write notes.md',
    kind: 'edit',
    status: 'pending',
    locations: [{ path: `${cwd}/notes.md` }],
    rawInput: { path: `${cwd}/notes.md`, content: 'notes\n' },
  };
  // Tell the client about the tool call, then ask: the bridge shows the request as a question to a person.
  await client.notify(acp.methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: 'tool_call', ...toolCall },
  });
  const answer = await client.request(acp.methods.client.session.requestPermission, {
    sessionId,
    toolCall: { toolCallId: toolCall.toolCallId, title: toolCall.title, kind: toolCall.kind },
    options: [
      { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ],
  });
  return answer.outcome.outcome === 'selected' ? answer.outcome.optionId : 'cancelled';
}

const sessions = new Map();

const app = acp
  .agent({ name: 'example-acp-agent' })
  .onRequest(acp.methods.agent.initialize, async ({ params }) => ({
    protocolVersion: params.protocolVersion,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: 'example-acp-agent', version: '1.0.0' },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async ({ params }) => {
    const sessionId = `example-${sessions.size + 1}`;
    sessions.set(sessionId, { cwd: params.cwd });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const text = params.prompt
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('\n');
    const request = requestOf(text);
    const chose = /^The requester chose: (.*)$/m.exec(request)?.[1];
    if (chose !== undefined) {
      await say(client, sessionId, `Going with ${chose}. Done.`);
    } else if (/\bwrite\b/i.test(request)) {
      const outcome = await askPermission(client, sessionId, sessions.get(sessionId)?.cwd ?? '.');
      await say(
        client,
        sessionId,
        outcome === 'allow' ? 'Allowed: I would write notes.md now.' : `Not writing (${outcome}).`,
      );
    } else if (/\bchoose\b/i.test(request)) {
      // The decision block ENDS the reply: options as "- " lines, RECOMMEND copies one verbatim, one REASON line.
      await say(
        client,
        sessionId,
        'Which config format should I use?\n[[NEEDS_DECISION]]\n- YAML\n- TOML\nRECOMMEND: YAML\nREASON: the rest of the project uses YAML\n',
      );
    } else {
      await say(client, sessionId, 'You said: ');
      await say(client, sessionId, request);
    }
    return { stopReason: 'end_turn' };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {
    // A turn this small ends on its own; a long one would stop and answer the prompt with `cancelled`.
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
