import { describe, expect, it, vi } from 'vitest';
import type { Pending } from '../../main/domain/pending.js';
import type { Task, TaskState } from '../../main/domain/task.js';
import { buildTrayMenu, menuText, type MenuTemplateItem, type TrayActions } from '../../main/shell/tray-menu.js';
import { trayStateOf, type BridgeSnapshot } from '../../main/shell/tray-state.js';

let n = 0;
function task(agent: string, text: string, state: TaskState = 'working', pending?: Pending): Task {
  n += 1;
  const id = `task-${n}`;
  return {
    kind: 'task',
    id,
    contextId: `ctx-${n}`,
    status: { state, timestamp: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString() },
    history: [{ kind: 'message', messageId: `m-${n}`, role: 'user', parts: [{ kind: 'text', text }] }],
    artifacts: [],
    metadata: {
      agent,
      requiresReview: true,
      createdAt: '2026-01-01T00:00:00.000Z',
      delegationDepth: 0,
      visitedAgents: [agent],
      ...(pending ? { pending } : {}),
    },
  };
}

const decision: Pending = {
  kind: 'decision',
  question: 'A or B?',
  options: ['A', 'B'],
  recommend: 'A',
  reason: 'first',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-01T00:30:00.000Z',
};

function snapshot(over: Partial<BridgeSnapshot> = {}): BridgeSnapshot {
  return {
    url: 'http://127.0.0.1:8791',
    agents: [
      { name: 'dsh', queued: 0 },
      { name: 'codex', queued: 0 },
    ],
    pending: [],
    working: [],
    recent: [],
    ...over,
  };
}

const prefs = { startAtLogin: false, wslSetup: 'ln -s …' };

function actions(): TrayActions & Record<string, ReturnType<typeof vi.fn>> {
  return {
    openApprovals: vi.fn(),
    openActivity: vi.fn(),
    copyTaskId: vi.fn(),
    setStartAtLogin: vi.fn(),
    openConfig: vi.fn(),
    reloadConfig: vi.fn(),
    copyWslSetup: vi.fn(),
    openLogs: vi.fn(),
    quit: vi.fn(),
  };
}

const labels = (menu: MenuTemplateItem[]): string[] => menu.map((i) => i.label ?? '—');
const item = (menu: MenuTemplateItem[], label: string): MenuTemplateItem => menu.find((i) => i.label === label)!;

describe('trayStateOf', () => {
  it('idle: every agent idle, grey icon, counts in the tooltip', () => {
    const s = trayStateOf({ kind: 'running', snapshot: snapshot() }, prefs);
    expect(s).toMatchObject({
      icon: 'idle',
      tooltip: 'Contactor: 2 agents',
      pendingCount: 0,
      running: true,
      headline: 'Bridge running on http://127.0.0.1:8791',
    });
    expect(s.agents).toEqual([
      { name: 'dsh', activity: 'idle' },
      { name: 'codex', activity: 'idle' },
    ]);
  });

  it('a refused config edit: said in the headline and the tooltip, the bridge still running', () => {
    const configError = '/home/me/.config/contactor/config.yaml:7: agents.dsh.timeout_s: Invalid input';
    const s = trayStateOf({ kind: 'running', snapshot: snapshot({ configError }) }, prefs);
    expect(s.running).toBe(true);
    expect(s.headline).toBe(`Bridge running on http://127.0.0.1:8791 — config edit not applied: ${configError}`);
    expect(s.tooltip).toBe('Contactor: config edit not applied · 2 agents');
  });

  it('working: names the task each agent works on, and its queue', () => {
    const building = task('dsh', 'build the release bundle for windows and linux\nthen test');
    const s = trayStateOf(
      {
        kind: 'running',
        snapshot: snapshot({
          agents: [
            { name: 'dsh', queued: 2 },
            { name: 'codex', queued: 0 },
          ],
          working: [building, task('dsh', 'lint')],
        }),
      },
      prefs,
    );
    expect(s.icon).toBe('working');
    expect(s.agents[0]!.activity).toBe('working on “build the release bundle for windows an…” (+1) · 2 queued');
    expect(s.agents[1]!.activity).toBe('idle');
    expect(s.tooltip).toBe('Contactor: 2 agents · 2 working');
  });

  it('needs you: waiting questions win the icon, count in the tooltip and per agent', () => {
    const waiting = [
      task('codex', 'pick a format', 'input-required', decision),
      task('codex', 'again', 'input-required', decision),
    ];
    const s = trayStateOf(
      {
        kind: 'running',
        snapshot: snapshot({ pending: waiting, working: [task('dsh', 'x')], recent: [waiting[1]!, waiting[0]!] }),
      },
      prefs,
    );
    expect(s.icon).toBe('needs-you');
    expect(s.pendingCount).toBe(2);
    expect(s.tooltip).toBe('Contactor: 2 agents · 1 working · 2 waiting for you');
    expect(s.agents[1]!.activity).toBe('2 waiting for you');
    expect(s.recent.map((r) => r.label)).toEqual([
      'waiting for you · codex: again',
      'waiting for you · codex: pick a format',
    ]);
  });

  it('error: red icon, the reason (first line) in headline and a tooltip Windows will not cut', () => {
    const message = `config.yaml:3: agents: expected a map ${'x'.repeat(200)}\nsecond line`;
    const s = trayStateOf({ kind: 'error', message }, prefs);
    expect(s.icon).toBe('error');
    expect(s.running).toBe(false);
    expect(s.headline).toMatch(/^Bridge stopped: config\.yaml:3: agents: expected a map x+$/);
    expect(s.tooltip.length).toBeLessThanOrEqual(127);
    expect(s.tooltip.endsWith('…')).toBe(true);
  });

  it('starting: no agents yet', () => {
    expect(trayStateOf({ kind: 'starting' }, prefs)).toMatchObject({
      icon: 'idle',
      running: false,
      agents: [],
      headline: 'Starting the bridge…',
    });
  });
});

describe('buildTrayMenu', () => {
  it('lists agents, approvals, recent tasks and the fixed entries in order', () => {
    const recent = [task('dsh', 'fix & ship', 'completed')];
    const menu = buildTrayMenu(trayStateOf({ kind: 'running', snapshot: snapshot({ recent }) }, prefs), actions());
    expect(labels(menu)).toEqual([
      'Bridge running on http://127.0.0.1:8791', '—', 'dsh: idle', 'codex: idle', '—', 'Approvals (0)', 'Activity', 'Recent tasks', '—',
      'Start at login', 'Open config', 'Reload config', 'Copy WSL CLI setup', 'Open logs', '—', 'Quit Contactor',
    ]); // prettier-ignore
    expect(item(menu, 'Recent tasks').submenu!.map((i) => i.label)).toEqual(['completed · dsh: fix && ship']);
    expect(
      menu.filter((i) => i.label?.startsWith('dsh') || i.label?.startsWith('codex')).every((i) => i.enabled === false),
    ).toBe(true);
  });

  it('wires each entry to its action', () => {
    const a = actions();
    const recent = [task('dsh', 'one', 'completed')];
    const menu = buildTrayMenu(
      trayStateOf({ kind: 'running', snapshot: snapshot({ recent }) }, { ...prefs, startAtLogin: true }),
      a,
    );
    item(menu, 'Approvals (0)').click!();
    item(menu, 'Activity').click!();
    expect(a.openActivity).toHaveBeenCalledOnce();
    item(menu, 'Recent tasks').submenu![0]!.click!();
    item(menu, 'Start at login').click!();
    for (const label of ['Open config', 'Reload config', 'Copy WSL CLI setup', 'Open logs', 'Quit Contactor'])
      item(menu, label).click!();
    expect(a.openApprovals).toHaveBeenCalledOnce();
    expect(a.copyTaskId).toHaveBeenCalledWith(recent[0]!.id);
    expect(a.setStartAtLogin).toHaveBeenCalledWith(false);
    expect(item(menu, 'Start at login')).toMatchObject({ type: 'checkbox', checked: true });
    for (const name of ['openConfig', 'reloadConfig', 'copyWslSetup', 'openLogs', 'quit'])
      expect(a[name]).toHaveBeenCalledOnce();
  });

  it('a stopped bridge still offers config, reload, logs and quit; no WSL path disables the copy', () => {
    const menu = buildTrayMenu(
      trayStateOf({ kind: 'error', message: 'port 8791 is in use' }, { startAtLogin: false, wslSetup: undefined }),
      actions(),
    );
    expect(labels(menu)).toContain('No agents while the bridge is stopped');
    expect(item(menu, 'Copy WSL CLI setup').enabled).toBe(false);
    expect(item(menu, 'Recent tasks').enabled).toBe(false);
    for (const label of ['Open config', 'Reload config', 'Open logs', 'Quit Contactor'])
      expect(item(menu, label).enabled).not.toBe(false);
  });

  it('says how to add an agent when none is configured', () => {
    const menu = buildTrayMenu(trayStateOf({ kind: 'running', snapshot: snapshot({ agents: [] }) }, prefs), actions());
    expect(labels(menu)).toContain('No agents configured: open the config to add one');
  });

  it('escapes & so Windows does not read it as a mnemonic', () => {
    expect(menuText('a & b && c')).toBe('a && b &&&& c');
  });
});
