/**
 * `scan` (find installed agents, propose config entries) and `skill install --for <agent>` (SKILL.md, and
 * `contactor mcp` registered with each MCP client installed here, after a yes).
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { stringify } from 'yaml';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { cliEntry, skillFile } from '../install-paths.js';
import { MCP_CLIENTS, PRODUCT, type McpClient } from '../mcp-clients/clients.js';
import { registerMcpServer, serverCommand, type Registration } from '../mcp-clients/registration.js';
import { agentHome, KNOWN_AGENTS, SKILL_TARGETS, skillFolder, type SkillTarget } from '../scan/known-agents.js';
import { runCommand } from '../command-runner.js';
import { propose, type Proposal, type Sighting } from '../scan/scan-proposal.js';
import { resolveProgram } from '../scan/which.js';
import { scanWindowsFromWsl } from '../scan/windows-scan.js';
import { scanWslDistros } from '../wsl/wsl-scan.js';

export function registerSetup(program: Command, run: Runner): void {
  program
    .command('scan')
    .description(
      'look for known agents (Claude Code, Codex, Gemini, Hermes, dsh, grok) on PATH, on the Windows side from WSL and in each WSL distro from Windows, and propose config.yaml entries',
    )
    .action(run(scan));
  program
    .command('skill')
    .description("SKILL.md, the agents' guide to contactor")
    .command('install')
    .description("copy SKILL.md into each installed agent's skills folder (an agent not installed here is skipped)")
    .option(
      '--for <agents>',
      `only these, comma-separated, installed or not: ${SKILL_TARGETS.join(', ')} (default: every one installed here)`,
      parseTargets,
    )
    .option('--dir <dir>', 'install into this folder instead (with one --for agent)')
    .option('--no-mcp', 'do not offer to register `contactor mcp` with the MCP clients installed here')
    .option('-y, --yes', 'register `contactor mcp` without asking (each file is backed up first)')
    .action(run(installSkill));
}

async function scan(cli: CliContext): Promise<number> {
  const { sightings, notes } = await findAgents(cli.env, process.platform);
  const found = sightings.map(propose);
  const agents = Object.fromEntries(found.map((f) => [f.name, f.entry]));
  if (cli.json) {
    cli.out.doc({ found, proposal: { agents }, notes, ...(found.length ? {} : { suggestions: nothingFound() }) });
    return EXIT.completed;
  }
  for (const note of notes) cli.out.note(`note: ${note}`);
  if (found.length === 0) {
    cli.out.line(`no known agents found (looked for ${KNOWN_AGENTS.map((k) => k.program).join(', ')})`);
    for (const line of nothingFound()) cli.out.line(line);
    return EXIT.completed;
  }
  for (const f of found) cli.out.note(`found ${f.product}: ${f.path}${where(f)}`);
  cli.out.line('# Add to config.yaml (`contactor config edit`), set cwd, then `contactor down && contactor up`:');
  cli.out.text(stringify({ agents }));
  return EXIT.completed;
}

/** What to do when no known agent is on this machine: install one, or add any other agent by hand. */
function nothingFound(): string[] {
  const installable = KNOWN_AGENTS.filter((k) => k.npmPackage && k.entry.kind === 'acp');
  return [
    'install one, then run `contactor scan` again:',
    ...installable.map((k) => `  npm install -g ${k.npmPackage}   # ${k.product}: ${k.program}`),
    'or add any agent by hand (`contactor config edit`), e.g. a CLI that reads the brief on stdin:',
    '  agents:',
    '    mine: { kind: subprocess_cli, command: [my-agent, --flag] }',
  ];
}

function where(f: Proposal): string {
  if (f.side === 'windows') return " (Windows side: for the desktop app's bridge)";
  return f.side === 'wsl' ? ` (WSL distro ${f.distro})` : '';
}

/** This machine's PATH, then the other side: Windows from inside WSL, each WSL distro from Windows. */
async function findAgents(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Promise<{ sightings: Sighting[]; notes: string[] }> {
  const sightings: Sighting[] = KNOWN_AGENTS.flatMap((known) => {
    const where = resolveProgram(known.program, env);
    return where ? [{ known, side: 'native' as const, path: where }] : [];
  });
  const programs = KNOWN_AGENTS.map((k) => k.program);
  const byProgram = (program: string) => KNOWN_AGENTS.find((k) => k.program === program)!;
  if (platform === 'linux') {
    const windows = await scanWindowsFromWsl({ run: runCommand, env, programs });
    if (windows.available) {
      for (const f of windows.found)
        sightings.push({ known: byProgram(f.program), side: 'windows', path: f.path, onPath: f.onPath });
      return { sightings, notes: windows.notes };
    }
  }
  if (platform === 'win32') {
    const wsl = await scanWslDistros({ run: runCommand, env, programs });
    if (wsl.available) {
      for (const f of wsl.found)
        sightings.push({ known: byProgram(f.program), side: 'wsl', path: f.path, distro: f.distro });
      return { sightings, notes: wsl.notes };
    }
  }
  return { sightings, notes: [] };
}

interface SkillOptions {
  for?: SkillTarget[];
  dir?: string;
  mcp?: boolean;
  yes?: boolean;
}

async function installSkill(cli: CliContext, opts: SkillOptions): Promise<number> {
  const source = skillFile();
  if (!source) throw new CliError('SKILL.md is not in this installation; reinstall contactor', EXIT.usage);
  if (opts.dir && opts.for?.length !== 1)
    throw new CliError('--dir needs exactly one agent: `--for <agent> --dir <dir>`', EXIT.usage);
  const where = skillHome(cli.env, process.platform);
  // Named agents get the skill even before their first run; otherwise only those whose folder is here.
  const named = opts.for !== undefined;
  const installed: { agent: SkillTarget; path: string }[] = [];
  const skipped: { agent: SkillTarget; missing: string }[] = [];
  for (const agent of opts.for ?? SKILL_TARGETS) {
    const home = path.join(...agentHome(agent, where.home, cli.env, where.platform));
    if (!named && !existsSync(home)) {
      skipped.push({ agent, missing: home });
      continue;
    }
    const dir = opts.dir
      ? path.resolve(opts.dir)
      : path.join(...skillFolder(agent, where.home, cli.env, where.platform));
    installed.push({ agent, path: copySkill(source, dir) });
  }
  const mcp = opts.mcp === false || opts.dir ? [] : await registerMcp(cli, opts, where);
  if (cli.json) cli.out.doc({ installed, skipped, mcp });
  else {
    for (const i of installed) cli.out.line(`installed SKILL.md for ${i.agent} at ${i.path}`);
    for (const s of skipped) cli.out.line(`skipped ${s.agent}: not installed here (no ${s.missing})`);
    reportMcp(cli, mcp, opts.yes === true);
  }
  if (installed.length === 0)
    throw new CliError(
      `no agent to install the skill for: none of ${SKILL_TARGETS.join(', ')} is installed here; name one with \`--for <agent>\``,
      EXIT.usage,
    );
  return EXIT.completed;
}

/**
 * Offers `contactor mcp` to every MCP client installed here (or to the named ones): asks on a terminal, and
 * writes without asking only with --yes; elsewhere nothing is written and the note says how.
 */
async function registerMcp(
  cli: CliContext,
  opts: SkillOptions,
  where: { home: string; platform: NodeJS.Platform },
): Promise<Registration[]> {
  const named = opts.for !== undefined;
  const clients = named ? MCP_CLIENTS.filter((c) => (opts.for as readonly string[]).includes(c)) : MCP_CLIENTS;
  const canAsk = !cli.json && process.stdin.isTTY === true && cli.out.interactive;
  const confirm = async (client: McpClient, file: string): Promise<boolean> => {
    if (opts.yes) return true;
    if (!canAsk) return false;
    cli.out.progress(`Register contactor's MCP server with ${PRODUCT[client]} (${file})? [y/N] `);
    const rl = createInterface({ input: process.stdin });
    try {
      return /^y(es)?$/i.test((await rl.question('')).trim());
    } finally {
      rl.close();
    }
  };
  return registerMcpServer({
    home: where.home,
    env: cli.env,
    platform: where.platform,
    clients,
    named,
    server: serverCommand(cli.env, where.platform, { execPath: process.execPath, entry: cliEntry() }),
    confirm,
  });
}

function reportMcp(cli: CliContext, results: Registration[], yes: boolean): void {
  for (const r of results) {
    if (r.status === 'registered')
      cli.out.line(`registered contactor mcp with ${r.client} in ${r.file}${r.detail ? ` (${r.detail})` : ''}`);
    if (r.status === 'already registered') cli.out.line(`${r.client} already has contactor mcp (${r.file})`);
    if (r.status === 'failed') cli.out.note(`could not register contactor mcp with ${r.client}: ${r.detail ?? ''}`);
  }
  const declined = results.filter((r) => r.status === 'declined');
  if (declined.length && !yes && !cli.out.interactive)
    cli.out.note(
      `not registered with ${declined.map((r) => r.client).join(', ')} (not asked: no terminal); \`contactor skill install --yes\` registers contactor mcp with them`,
    );
}

function copySkill(source: string, dir: string): string {
  const target = path.join(dir, 'SKILL.md');
  try {
    mkdirSync(dir, { recursive: true });
    copyFileSync(source, target);
  } catch (err) {
    throw new CliError(`cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, EXIT.usage);
  }
  return target;
}

/**
 * Whose home the skill goes into. Run through the WSL wrapper (resources/cli/contactor), the CLI is the Windows
 * app's, but the agent that reads the skill lives in WSL: the wrapper passes that home, as a Windows path, in
 * CONTACTOR_WSL_HOME, and the agent's folder is then laid out as on Linux.
 */
export function skillHome(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): { home: string; platform: NodeJS.Platform } {
  if (env.CONTACTOR_WSL_HOME) return { home: env.CONTACTOR_WSL_HOME, platform: 'linux' };
  return { home: env.HOME || homedir(), platform };
}

function parseTargets(value: string): SkillTarget[] {
  const names = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(SKILL_TARGETS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length)
    throw new InvalidArgumentError(`use one or more of ${SKILL_TARGETS.join(', ')}`);
  return [...new Set(names)] as SkillTarget[];
}
