/**
 * The scheduler remembers which conversations (agent + contextId) already ran a turn, so a multi-turn
 * agent is told a turn is a follow-up (runtime/turn-scheduler.ts). It remembers the 4,096 most recently
 * used, not every conversation of a process that runs for weeks: the one used longest ago is forgotten,
 * and its next turn is a first turn again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeBackend, fakeTraits } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

const cores: Core[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
});

describe('warm conversations', () => {
  it('keeps the 4,096 most recently used: the oldest is told as a first turn, a reused one stays warm', async () => {
    const core = new Core();
    cores.push(core);
    const agent = core.add(
      'agent',
      new FakeBackend(
        async (_turn, report) => {
          report.text('ok');
          return { kind: 'completed' };
        },
        fakeTraits({ multiTurn: true }),
      ),
      { appendDecisionContract: false },
    );
    const turn = async (contextId: string): Promise<boolean> => {
      const task = await core.send('agent', 'go', { contextId, blocking: true });
      expect(task.status.state).toBe('completed');
      return agent.turns.at(-1)!.followUp;
    };

    expect(await turn('c-0')).toBe(false);
    expect(await turn('c-1')).toBe(false);
    expect(await turn('c-0')).toBe(true); // c-0 is now the most recent, c-1 the oldest
    for (let i = 2; i < 4097; i++) await turn(`c-${i}`); // 4,097 conversations in all: one too many
    expect(await turn('c-0')).toBe(true);
    expect(await turn('c-1')).toBe(false);
  }, 120_000);
});
