/**
 * The running `contactor top`: holds the view model (view-model.ts), feeds it from the bridge (source.ts),
 * turns key presses into commands (keys.ts) and carries them out. No React here: the screen (app.tsx)
 * subscribes to it and renders `state`; tests drive it with key presses and a stand-in source.
 */
import type { ActivityDetail, ActivitySnapshot } from '../../schema/activity.js';
import type { CliTask } from '../../schema/cli.js';
import { checkAnswer } from './answer-check.js';
import { commandFor, type Command, type KeyPress } from './keys.js';
import type { SourceHandlers } from './source.js';
import {
  closeDetail,
  initialState,
  moveSelection,
  openDetail,
  withDetail,
  withFeedEvent,
  stateFlash,
  withFlash,
  withSnapshot,
  type TopState,
} from './view-model.js';

/** What the controller needs of the bridge (source.ts TopSource). */
export interface TopData {
  snapshot(): Promise<ActivitySnapshot>;
  detail(taskId: string): Promise<ActivityDetail>;
  answer(taskId: string, answer: string): Promise<CliTask>;
  cancel(taskId: string): Promise<CliTask>;
  follow(handlers: SourceHandlers, signal: AbortSignal): Promise<void>;
}

export class TopController {
  private current: TopState = initialState();
  private readonly listeners = new Set<() => void>();
  /** A snapshot is being taken / another one was asked for meanwhile: asks coalesce into at most one more. */
  private refreshing = false;
  private refreshAgain = false;

  constructor(
    private readonly data: TopData,
    private readonly onQuit: () => void,
  ) {}

  get state(): TopState {
    return this.current;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): TopState => this.current;

  /** Follows the bridge until `signal` aborts; rejects with what retrying cannot fix. */
  run(signal: AbortSignal): Promise<void> {
    return this.data.follow(
      {
        snapshot: (snap) => this.set(withSnapshot(this.current, snap)),
        event: (event) => {
          const { state, refetch } = withFeedEvent(this.current, event);
          this.set(state);
          if (refetch) void this.refresh();
        },
        connection: (connection) => this.set({ ...this.current, connection }),
      },
      signal,
    );
  }

  key(input: string, key: KeyPress): void {
    this.execute(commandFor(this.current, input, key));
  }

  private execute(command: Command): void {
    const s = this.current;
    switch (command.kind) {
      case 'none':
        return;
      case 'quit':
        return this.onQuit();
      case 'move':
        return this.set(moveSelection(s, command.by));
      case 'open':
        this.set(openDetail(s));
        return void this.loadDetail();
      case 'close':
        return this.set(closeDetail(s));
      case 'refresh':
        return void this.refresh();
      case 'explain':
        return this.set(withFlash(s, command.text));
      case 'start-answer': {
        const opened = s.detail?.taskId === command.taskId ? s : openDetail({ ...s, selectedId: command.taskId });
        this.set({ ...opened, prompt: { kind: 'answer', taskId: command.taskId, input: '' }, flash: undefined });
        if (!opened.detail?.loaded) void this.loadDetail();
        return;
      }
      case 'start-cancel':
        return this.set({ ...s, prompt: { kind: 'cancel', taskId: command.taskId }, flash: undefined });
      case 'type':
      case 'erase': {
        if (s.prompt?.kind !== 'answer') return;
        const input = command.kind === 'type' ? s.prompt.input + command.text : s.prompt.input.slice(0, -1);
        return this.set({ ...s, prompt: { kind: 'answer', taskId: s.prompt.taskId, input } });
      }
      case 'dismiss': {
        const { prompt: _prompt, ...rest } = s;
        return this.set(rest);
      }
      case 'submit-answer':
        return void this.submitAnswer();
      case 'confirm-cancel':
        return void this.confirmCancel(command.taskId);
      default: {
        const never: never = command;
        return never;
      }
    }
  }

  private async submitAnswer(): Promise<void> {
    const s = this.current;
    if (s.prompt?.kind !== 'answer') return;
    const { taskId, input } = s.prompt;
    const pending = s.detail?.taskId === taskId ? s.detail.pending : undefined;
    const checked = checkAnswer(pending, input);
    if (!checked.ok) return this.set({ ...s, prompt: { ...s.prompt, error: checked.error } });
    try {
      const task = await this.data.answer(taskId, checked.answer);
      const { prompt: _prompt, ...rest } = this.current;
      const about = { taskId: task.id, state: task.status.state };
      this.set(withFlash(rest, `answered "${checked.answer}": task ${task.id} is ${task.status.state}`, false, about));
    } catch (err) {
      const now = this.current;
      if (now.prompt?.kind === 'answer') this.set({ ...now, prompt: { ...now.prompt, error: (err as Error).message } });
    }
    await this.refresh();
  }

  private async confirmCancel(taskId: string): Promise<void> {
    const { prompt: _prompt, ...rest } = this.current;
    this.set(withFlash(rest, `canceling task ${taskId}…`));
    try {
      const task = await this.data.cancel(taskId);
      this.set({ ...this.current, flash: stateFlash(task.id, task.status.state) });
    } catch (err) {
      this.set(withFlash(this.current, (err as Error).message, true));
    }
    await this.refresh();
  }

  private async loadDetail(): Promise<void> {
    const taskId = this.current.detail?.taskId;
    if (!taskId) return;
    try {
      const detail = await this.data.detail(taskId);
      this.set(withDetail(this.current, detail));
    } catch (err) {
      this.set(withFlash(this.current, (err as Error).message, true));
    }
  }

  /** A fresh snapshot (and the followed task again); asks while one is under way make one more, not many. */
  private async refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        try {
          const snap = await this.data.snapshot();
          this.set(withSnapshot(this.current, snap));
          if (this.current.detail) await this.loadDetail();
        } catch (err) {
          this.set(withFlash(this.current, (err as Error).message, true));
        }
      } while (this.refreshAgain);
    } finally {
      this.refreshing = false;
    }
  }

  private set(next: TopState): void {
    if (next === this.current) return;
    this.current = next;
    for (const listener of this.listeners) listener();
  }
}
