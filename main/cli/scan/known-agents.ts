/**
 * Where the well-known agent products (main/config/known-agents.ts) look for skills, for `skill install`.
 */
export { KNOWN_AGENTS, type KnownAgent } from '../../config/known-agents.js';

/** Where each agent product looks for skills (SKILL.md in a `contactor` folder). */
export const SKILL_TARGETS = ['claude', 'codex', 'gemini', 'opencode', 'hermes', 'dsh'] as const;
export type SkillTarget = (typeof SKILL_TARGETS)[number];

/**
 * Where each agent reads user-level skills (`<folder>/SKILL.md`): Claude Code `~/.claude/skills`, Codex
 * `~/.codex/skills`, Gemini CLI `~/.gemini/skills` (geminicli.com/docs/cli/using-agent-skills), OpenCode
 * `~/.config/opencode/skills` (opencode.ai/docs/skills), Hermes `~/.hermes/skills`, dsh `~/.dsh/skills`.
 */
export function skillFolder(
  target: SkillTarget,
  home: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): string[] {
  return [...agentHome(target, home, env, platform), 'skills', 'contactor'];
}

/** The agent's own folder: it exists once the agent has run on this machine (what `skill install` looks for). */
export function agentHome(
  target: SkillTarget,
  home: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): string[] {
  switch (target) {
    case 'claude':
      return [home, '.claude'];
    case 'dsh':
      return [home, '.dsh'];
    case 'codex':
      return [home, '.codex'];
    case 'gemini':
      return [home, '.gemini'];
    case 'opencode':
      // OpenCode follows XDG on every platform, ~/.config by default (Windows too).
      return platform !== 'win32' && env.XDG_CONFIG_HOME
        ? [env.XDG_CONFIG_HOME, 'opencode']
        : [home, '.config', 'opencode'];
    case 'hermes':
      return platform === 'win32' && env.LOCALAPPDATA ? [env.LOCALAPPDATA, 'hermes'] : [home, '.hermes'];
    default: {
      const never: never = target;
      return never;
    }
  }
}
