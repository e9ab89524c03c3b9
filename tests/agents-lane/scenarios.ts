/**
 * The scenarios every real agent of the lane goes through, through the bridge, as a person and an A2A
 * client would use it. One bridge process per agent file; the scenarios of one agent run in order on it
 * (its process stays warm between them, as in real use), and the agents' files run side by side.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/bridge.js';
import { describeEvent, openStream, type SseEvent } from '../a2a/wire.js';
import type { TestBridge } from '../helpers/bridge.js';
import { AGENT_WAIT_MS, alive, LaneBridge, replyText, type Wire } from './lane-bridge.js';
import type { LaneAgentName } from './lane-agents.js';

const T = AGENT_WAIT_MS + 60_000;

export function agentScenarios(name: LaneAgentName): void {
  describe(`${name} through the bridge`, () => {
    let b: LaneBridge;
    beforeAll(async () => {
      b = await LaneBridge.create(name);
    }, T);
    afterAll(async () => {
      await b?.cleanup();
    }, T);

    const ws = (file: string): string => path.join(b.workspace, file);

    /** Parks on the agent's permission request; fails with the reply when the agent never asked. */
    async function parked(task: Wire): Promise<Wire> {
      const waiting = await b.waitFor(task.id, ['input-required', 'completed', 'failed']);
      if (waiting.status.state !== 'input-required') {
        throw new Error(
          `${name} did not ask permission: ${waiting.status.state} ${replyText(waiting)} ${JSON.stringify(waiting.status.message ?? '')}`,
        );
      }
      expect(waiting.metadata.pending).toMatchObject({ kind: 'permission' });
      return waiting;
    }

    it(
      'a text turn',
      async () => {
        const task = await b.send('LANE: say hello from the lane');
        const done = await b.waitFor(task.id, ['completed', 'failed']);
        expect(done.status.state).toBe('completed');
        expect(replyText(done)).toContain('hello from the lane');
        expect(done.metadata.receipt).toMatchObject({ protocolVersion: 1, stopReason: 'end_turn' });
      },
      T,
    );

    it(
      'the card says what the agent can do, and it is true',
      async () => {
        const res = await fetch(`${b.url}/agents/${name}/.well-known/agent-card.json`);
        const card = (await res.json()) as Wire;
        expect(card.capabilities).toMatchObject({ streaming: true });
        const traits = (card.capabilities.extensions ?? []).find(
          (e: Wire) => e.uri === 'urn:contactor:agent-traits:v1',
        )?.params;
        // Each is proven by a scenario below: permissions (inputRequired), the two cancels (interruptible),
        // two turns sharing one session (multiTurn), pieces as they come (streaming).
        expect(traits).toMatchObject({ inputRequired: true, interruptible: true, multiTurn: true });
      },
      T,
    );

    it(
      'v1 streaming shows the reply in pieces as they come',
      async () => {
        const stream = await openStream({ url: b.url, token: tokenOf(b) } as unknown as TestBridge, {
          version: '1.0',
          method: 'SendStreamingMessage',
          params: {
            message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'LANE: pieces 12' }] },
          },
          path: `/agents/${name}`,
        });
        const pieces: { at: number; text: string }[] = [];
        let last: { kind: string; state?: string } | undefined;
        for (;;) {
          const event: SseEvent | undefined = await stream.next();
          if (!event) break;
          const e = describeEvent('1.0', event);
          last = e;
          if (e.kind === 'artifact') {
            const text = (e.result.artifact?.parts ?? []).map((p: Wire) => p.text ?? '').join('');
            if (text) pieces.push({ at: Date.now(), text });
          }
          if (e.kind === 'status' && ['completed', 'failed', 'canceled'].includes(e.state ?? '')) break;
        }
        stream.close();
        expect(last?.state).toBe('completed');
        expect(pieces.map((p) => p.text).join('')).toContain('part11');
        // More than one artifact update, spread over time: the pieces came while the agent still streamed.
        expect(pieces.length).toBeGreaterThan(1);
        expect(pieces.at(-1)!.at - pieces[0]!.at).toBeGreaterThan(0);
      },
      T,
    );

    it(
      'a permission answered "allow" runs the command',
      async () => {
        const task = await b.send(`LANE: run touch ${ws('allowed.txt')}`);
        await parked(task);
        expect(existsSync(ws('allowed.txt'))).toBe(false);
        await b.answer(task.id, 'yes');
        const done = await b.waitFor(task.id, ['completed', 'failed']);
        expect(done.status.state, explain(done)).toBe('completed');
        expect(existsSync(ws('allowed.txt')), explain(done)).toBe(true);
      },
      T,
    );

    it(
      'a rejected command does not run, and the task ends sensibly',
      async () => {
        writeFileSync(ws('keep.txt'), 'original');
        const task = await b.send(`LANE: run rm ${ws('keep.txt')}`);
        await parked(task);
        await b.answer(task.id, 'no');
        const done = await b.waitFor(task.id, ['completed', 'failed', 'canceled']);
        expect(['completed', 'failed']).toContain(done.status.state);
        expect(readFileSync(ws('keep.txt'), 'utf8')).toBe('original');
      },
      T,
    );

    it(
      'a file write (allowed when the agent asks)',
      async () => {
        const task = await b.send(`LANE: write ${ws('written.txt')} written through the lane`);
        const first = await b.waitFor(task.id, ['input-required', 'completed', 'failed']);
        if (first.status.state === 'input-required') await b.answer(task.id, 'yes');
        const done = await b.waitFor(task.id, ['completed', 'failed']);
        expect(done.status.state, explain(done)).toBe('completed');
        expect(readFileSync(ws('written.txt'), 'utf8').trim()).toBe('written through the lane');
      },
      T,
    );

    it(
      'two turns in one contextId share one session',
      async () => {
        const first = await b.send('LANE: remember pineapple');
        const one = await b.waitFor(first.id, ['completed', 'failed']);
        expect(replyText(one)).toContain('remembered');
        const second = await b.send('LANE: recall', { contextId: one.contextId });
        const two = await b.waitFor(second.id, ['completed', 'failed']);
        expect(replyText(two)).toContain('you said pineapple');
        expect(two.metadata.receipt).toMatchObject({ sessionId: one.metadata.receipt.sessionId, sessionReused: true });
      },
      T,
    );

    it(
      'cancel mid-turn: the agent stops the turn, its process and sessions survive',
      async () => {
        const warm = await b.send('LANE: remember mango');
        const kept = await b.waitFor(warm.id, ['completed', 'failed']);
        const task = await b.send('LANE: slow');
        const streaming = await b.waitUntil(task.id, (t) => replyText(t).includes('piece 2'), 'streamed output');
        const pid = streaming.metadata.receipt.pid as number;
        await b.cancel(task.id);
        const canceled = await b.waitUntil(task.id, (t) => t.metadata.receipt?.cancel !== undefined, 'receipt.cancel');
        expect(canceled.status.state).toBe('canceled');
        expect(canceled.metadata.receipt.cancel).toBe('agent stopped the turn');
        expect(alive(pid)).toBe(true);
        const again = await b.send('LANE: recall', { contextId: kept.contextId });
        const after = await b.waitFor(again.id, ['completed', 'failed']);
        expect(replyText(after)).toContain('you said mango');
        expect(after.metadata.receipt).toMatchObject({ pid, processReused: true, sessionReused: true });
      },
      T,
    );

    it(
      'cancel while a permission is pending: the command never runs, the process survives',
      async () => {
        const task = await b.send(`LANE: run touch ${ws('never.txt')}`);
        const waiting = await parked(task);
        const pid = waiting.metadata.receipt.pid as number;
        await b.cancel(task.id);
        const canceled = await b.waitFor(task.id, ['canceled']);
        expect(canceled.status.state).toBe('canceled');
        const next = await b.send('LANE: say still here');
        const done = await b.waitFor(next.id, ['completed', 'failed']);
        expect(replyText(done)).toContain('still here');
        expect(done.metadata.receipt).toMatchObject({ pid, processReused: true });
        expect(alive(pid)).toBe(true);
        expect(existsSync(ws('never.txt'))).toBe(false);
      },
      T,
    );

    it(
      '`contactor doctor` passes for the agent',
      () => {
        const run = spawnSync(
          process.execPath,
          [path.join(REPO_ROOT, 'bin', 'contactor.js'), 'doctor', '--json', '-c', b.configPath],
          {
            encoding: 'utf8',
            timeout: AGENT_WAIT_MS,
            env: { ...process.env, CONTACTOR_CONFIG: undefined },
          },
        );
        const report = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string }[] };
        const probe = report.checks.find((c) => c.name === `acp ${name}`);
        expect(probe, run.stdout + run.stderr).toMatchObject({ status: 'ok' });
      },
      T,
    );

    it(
      'kill -9 of the bridge with a permission pending, restart, answer: the approved call runs without asking again',
      async () => {
        const task = await b.send(`LANE: run touch ${ws('after-restart.txt')}`);
        const waiting = await parked(task);
        expect(waiting.metadata.pending.reattach, explain(waiting)).toBeTruthy();
        await b.kill9();
        await b.start();
        await b.answer(task.id, 'yes');
        const done = await b.waitFor(task.id, ['completed', 'failed', 'input-required']);
        expect(done.status.state, JSON.stringify(done.status)).toBe('completed');
        expect(existsSync(ws('after-restart.txt'))).toBe(true);
        const asked = (done.metadata.questions ?? []).filter((q: Wire) => q.kind === 'permission');
        expect(asked).toHaveLength(1);
      },
      T,
    );
  });
}

/** What a failed expectation shows: the task's state, status text, reply and receipt. */
function explain(task: Wire): string {
  return JSON.stringify({ status: task.status, reply: replyText(task), receipt: task.metadata?.receipt }).slice(
    0,
    3000,
  );
}

function tokenOf(b: LaneBridge): string {
  return JSON.parse(readFileSync(path.join(b.dataDir, 'bridge.json'), 'utf8')).token as string;
}
