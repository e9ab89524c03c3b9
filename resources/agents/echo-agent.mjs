#!/usr/bin/env node
// The built-in demo agent, so `contactor send echo "hello"` works out of the box. Plain Node, no deps.
// Reads the prompt from stdin (or from the arguments after `--`) and replies:
//   - "Going with X. Done."                 when the prompt carries "The requester chose: X";
//   - a question + decision block            when the text has "decide: A|B|..." (recommends the first);
//   - "echo: <text>"                         otherwise.
// The bridge appends its decision contract to every prompt; it is stripped before echoing so the demo
// answers only what the requester wrote.

const CONTRACT_LINE = 'If you cannot continue without the requester choosing';
const CHOSEN = /^The requester chose: (.+)$/m;
const DECIDE = /decide:\s*([^\n]+)/i;

async function readPrompt() {
  const dash = process.argv.indexOf('--');
  if (dash >= 0) return process.argv.slice(dash + 1).join(' ');
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The prompt with every copy of the contract removed: from its `---` line through its `Rules:` line. */
function withoutContract(prompt) {
  const kept = [];
  let inContract = false;
  for (const line of prompt.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.startsWith(CONTRACT_LINE)) {
      if (kept.at(-1)?.trim() === '---') kept.pop();
      inContract = true;
    }
    if (!inContract) kept.push(line);
    else if (line.startsWith('Rules:')) inContract = false;
  }
  return kept.join('\n').trim();
}

function reply(prompt) {
  const text = withoutContract(prompt);
  const chosen = CHOSEN.exec(text);
  if (chosen) return `Going with ${chosen[1].trim()}. Done.`;

  const decide = DECIDE.exec(text);
  const options = decide ? [...new Set(decide[1].split('|').map((o) => o.trim()))].filter((o) => o !== '') : [];
  if (options.length >= 2) {
    return [
      `Which one should I go with: ${options.join(' or ')}?`,
      '[[NEEDS_DECISION]]',
      ...options.map((o) => `- ${o}`),
      `RECOMMEND: ${options[0]}`,
      'REASON: it is listed first.',
    ].join('\n');
  }
  return `echo: ${text}`;
}

process.stdout.write(`${reply(await readPrompt())}\n`);
