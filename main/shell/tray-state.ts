/**
 * What the tray shows, computed from a snapshot of the bridge. Pure: no Electron, no bridge calls, so every
 * state the tray can be in is a plain unit test.
 */
import { visible } from '../domain/visible-text.js';
import { textOf, type Task, type TaskState } from '../domain/task.js';

/** What the shell reads from the bridge for one refresh (see bridge-snapshot.ts). */
export interface BridgeSnapshot {
  url: string;
  agents: { name: string; description?: string; queued: number }[];
  /** Open questions, oldest first. */
  pending: Task[];
  /** Tasks in `working`. */
  working: Task[];
  /** Latest tasks, newest first. */
  recent: Task[];
  /** A config edit the bridge refused (`file:line: key: problem`); it runs on the last good config. */
  configError?: string;
}

export type BridgeStatus =
  { kind: 'starting' } | { kind: 'running'; snapshot: BridgeSnapshot } | { kind: 'error'; message: string };

export interface AgentLine {
  name: string;
  /** "idle", or the parts that apply: "working on “…”", "2 queued", "waiting for you". */
  activity: string;
}

export interface RecentTaskLine {
  id: string;
  label: string;
}

export type TrayIconState = 'idle' | 'working' | 'needs-you' | 'error';

export interface TrayState {
  /** One line about the bridge itself: where it listens, or why it is not running. */
  headline: string;
  running: boolean;
  icon: TrayIconState;
  tooltip: string;
  agents: AgentLine[];
  pendingCount: number;
  recent: RecentTaskLine[];
  startAtLogin: boolean;
  /** The WSL CLI commands, when the install path can be expressed in WSL. */
  wslSetup: string | undefined;
}

/** Windows truncates tray tooltips at 127 characters (NOTIFYICONDATAW.szTip). */
const TOOLTIP_MAX = 127;
const TITLE_MAX = 40;

export function trayStateOf(
  status: BridgeStatus,
  prefs: { startAtLogin: boolean; wslSetup: string | undefined },
): TrayState {
  const base = { startAtLogin: prefs.startAtLogin, wslSetup: prefs.wslSetup };
  switch (status.kind) {
    case 'starting':
      return {
        ...base,
        headline: 'Starting the bridge…',
        running: false,
        icon: 'idle',
        tooltip: 'Contactor: starting',
        agents: [],
        pendingCount: 0,
        recent: [],
      };
    case 'error':
      return {
        ...base,
        headline: `Bridge stopped: ${firstLine(status.message)}`,
        running: false,
        icon: 'error',
        tooltip: clip(`Contactor: bridge stopped — ${firstLine(status.message)}`, TOOLTIP_MAX),
        agents: [],
        pendingCount: 0,
        recent: [],
      };
    case 'running':
      return { ...base, ...runningState(status.snapshot) };
    default: {
      const never: never = status;
      return never;
    }
  }
}

function runningState(s: BridgeSnapshot): Omit<TrayState, 'startAtLogin' | 'wslSetup'> {
  const agents = s.agents.map((a) => ({ name: a.name, activity: activityOf(a.name, a.queued, s) }));
  const pendingCount = s.pending.length;
  const workingCount = s.working.length;
  const icon: TrayIconState = pendingCount > 0 ? 'needs-you' : workingCount > 0 ? 'working' : 'idle';
  const counts = [
    `${agents.length} agent${agents.length === 1 ? '' : 's'}`,
    ...(workingCount ? [`${workingCount} working`] : []),
    ...(pendingCount ? [`${pendingCount} waiting for you`] : []),
  ];
  const configNote = s.configError ? `config edit not applied: ${firstLine(s.configError)}` : undefined;
  return {
    headline: configNote ? `Bridge running on ${s.url} — ${configNote}` : `Bridge running on ${s.url}`,
    running: true,
    icon,
    tooltip: clip(`Contactor: ${configNote ? 'config edit not applied · ' : ''}${counts.join(' · ')}`, TOOLTIP_MAX),
    agents,
    pendingCount,
    recent: s.recent.map((t) => ({
      id: t.id,
      label: `${stateWord(t.status.state)} · ${t.metadata.agent}: ${titleOf(t)}`,
    })),
  };
}

function activityOf(agent: string, queued: number, s: BridgeSnapshot): string {
  const working = s.working.filter((t) => t.metadata.agent === agent);
  const waiting = s.pending.filter((t) => t.metadata.agent === agent).length;
  const parts = [
    ...(working[0]
      ? [`working on “${titleOf(working[0])}”${working.length > 1 ? ` (+${working.length - 1})` : ''}`]
      : []),
    ...(queued ? [`${queued} queued`] : []),
    ...(waiting ? [waiting === 1 ? 'waiting for you' : `${waiting} waiting for you`] : []),
  ];
  return parts.length ? parts.join(' · ') : 'idle';
}

/**
 * The first line of the requester's message: what the task is about, in the requester's words (a calling
 * agent's, too: marked visible, SECURITY.md#what-a-person-reads).
 */
export function titleOf(task: Task, max = TITLE_MAX): string {
  return clip(visible(firstLine(textOf(task.history[0]?.parts ?? [])), 'one-line') || '(no text)', max);
}

function stateWord(state: TaskState): string {
  return state === 'input-required' || state === 'auth-required' ? 'waiting for you' : state;
}

function firstLine(text: string): string {
  return text.trim().split(/\r?\n/, 1)[0] ?? '';
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
