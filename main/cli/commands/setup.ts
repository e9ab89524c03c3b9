/** `scan` (find installed agents, propose config entries) and `skill install --for <agent>`. */
import { copyFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { stringify } from 'yaml';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { skillFile } from '../install-paths.js';
import { KNOWN_AGENTS, SKILL_TARGETS, skillFolder, type SkillTarget } from '../scan/known-agents.js';
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
    .description("copy SKILL.md into an agent's skills folder")
    .requiredOption('--for <agent>', `one of ${SKILL_TARGETS.join(', ')}`, parseTarget)
    .option('--dir <dir>', 'install into this folder instead')
    .action(run(installSkill));
}

async function scan(cli: CliContext): Promise<number> {
  const { sightings, notes } = await findAgents(cli.env, process.platform);
  const found = sightings.map(propose);
  const agents = Object.fromEntries(found.map((f) => [f.name, f.entry]));
  if (cli.json) {
    cli.out.doc({ found, proposal: { agents }, notes });
    return EXIT.completed;
  }
  for (const note of notes) cli.out.note(`note: ${note}`);
  if (found.length === 0) {
    cli.out.line(`no known agents found (looked for ${KNOWN_AGENTS.map((k) => k.program).join(', ')})`);
    const installable = KNOWN_AGENTS.filter((k) => k.npmPackage && k.entry.kind === 'acp');
    cli.out.line(
      `install one with npm: ${installable.map((k) => `${k.npmPackage} (${k.program})`).join(', ')}; then run \`contactor setup\` again`,
    );
    return EXIT.completed;
  }
  for (const f of found) cli.out.note(`found ${f.product}: ${f.path}${where(f)}`);
  cli.out.line('# Add to config.yaml (`contactor config edit`), set cwd, then `contactor down && contactor up`:');
  cli.out.text(stringify({ agents }));
  return EXIT.completed;
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

async function installSkill(cli: CliContext, opts: { for: SkillTarget; dir?: string }): Promise<number> {
  const source = skillFile();
  if (!source) throw new CliError('SKILL.md is not in this installation; reinstall contactor', EXIT.usage);
  const where = skillHome(cli.env, process.platform);
  const dir = opts.dir
    ? path.resolve(opts.dir)
    : path.join(...skillFolder(opts.for, where.home, cli.env, where.platform));
  const target = path.join(dir, 'SKILL.md');
  try {
    mkdirSync(dir, { recursive: true });
    copyFileSync(source, target);
  } catch (err) {
    throw new CliError(`cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, EXIT.usage);
  }
  if (cli.json) cli.out.doc({ agent: opts.for, path: target });
  else cli.out.line(`installed SKILL.md for ${opts.for} at ${target}`);
  return EXIT.completed;
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

function parseTarget(value: string): SkillTarget {
  if (!(SKILL_TARGETS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`use one of ${SKILL_TARGETS.join(', ')}`);
  return value as SkillTarget;
}
