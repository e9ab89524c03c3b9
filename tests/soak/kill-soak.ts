/**
 * The long kill -9 soak (opt-in: `npm run soak`). CONTACTOR_SOAK_ROUNDS (default 30) and
 * CONTACTOR_SOAK_SENDS (default 60 per round) set its size. Exits 1 on the first broken promise.
 */
import { runKillRounds } from '../security/kill-harness.js';

const rounds = Number(process.env.CONTACTOR_SOAK_ROUNDS ?? 30);
const sendsPerRound = Number(process.env.CONTACTOR_SOAK_SENDS ?? 60);
try {
  const figures = await runKillRounds({
    rounds,
    sendsPerRound,
    maxKillDelayMs: 1500,
    log: (line) => console.log(line),
  });
  console.log(`soak passed: ${JSON.stringify(figures)}`);
} catch (err) {
  console.error(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
