/**
 * Where the well-known agent products (main/config/known-agents.ts) look for skills, for `skill install`.
 */
export { KNOWN_AGENTS, type KnownAgent } from '../../config/known-agents.js';

/** Where each agent product looks for skills (SKILL.md in a `contactor` folder). */
export const SKILL_TARGETS = ['claude', 'hermes', 'dsh', 'codex'] as const;
export type SkillTarget = (typeof SKILL_TARGETS)[number];

export function skillFolder(
  target: SkillTarget,
  home: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): string[] {
  switch (target) {
    case 'claude':
      return [home, '.claude', 'skills', 'contactor'];
    case 'dsh':
      return [home, '.dsh', 'skills', 'contactor'];
    case 'codex':
      return [home, '.codex', 'skills', 'contactor'];
    case 'hermes':
      return platform === 'win32' && env.LOCALAPPDATA
        ? [env.LOCALAPPDATA, 'hermes', 'skills', 'contactor']
        : [home, '.hermes', 'skills', 'contactor'];
    default: {
      const never: never = target;
      return never;
    }
  }
}
