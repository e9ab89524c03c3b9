/**
 * `contactor top` under a real pseudo-terminal (node-pty), its output rendered by a real terminal emulator
 * (xterm.js headless), so a test reads the screen a person would see and types the keys a person would.
 */
import { Terminal } from '@xterm/headless';
import { spawn, type IPty } from '@lydell/node-pty';
import { pollUntil } from '../../helpers/wait.js';

export interface PtyScreen {
  pty: IPty;
  term: Terminal;
  /** Everything the program wrote, escape sequences included. */
  raw(): string;
  /** The visible screen, one string per line, trailing blanks trimmed. */
  lines(): string[];
  text(): string;
  /** Titles the program set through escape sequences. */
  titles: string[];
  type(keys: string): void;
  /** Waits until the screen shows `what` (a string or a test of the whole screen); returns the screen. */
  shows(what: string | ((screen: string) => boolean), label?: string): Promise<string>;
  exited: Promise<{ exitCode: number; signal?: number }>;
  resize(cols: number, rows: number): void;
  kill(): void;
}

export const KEY = {
  enter: '\r',
  esc: '\u001b',
  up: '\u001b[A',
  down: '\u001b[B',
  backspace: '\u007f',
  ctrlC: '\u0003',
};

export function startOnPty(
  file: string,
  args: string[],
  opts: { env: Record<string, string>; cols?: number; rows?: number; cwd?: string },
): PtyScreen {
  const cols = opts.cols ?? 120;
  const rows = opts.rows ?? 30;
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  const titles: string[] = [];
  term.onTitleChange((t) => titles.push(t));
  const pty = spawn(file, args, {
    name: 'xterm-256color',
    cols,
    rows,
    cwd: opts.cwd ?? process.cwd(),
    env: { TERM: 'xterm-256color', ...opts.env },
  });
  let raw = '';
  pty.onData((data) => {
    raw += data;
    term.write(data);
  });
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => pty.onExit(resolve));
  const lines = (): string[] => {
    const buffer = term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < term.rows; i += 1)
      out.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return out;
  };
  const text = (): string => lines().join('\n');
  return {
    pty,
    term,
    raw: () => raw,
    lines,
    text,
    titles,
    type: (keys) => pty.write(keys),
    shows: (what, label) =>
      pollUntil(
        // The emulator parses written data asynchronously: an empty write's callback runs after it caught up.
        () => new Promise<string>((resolve) => term.write('', () => resolve(text()))),
        (screen) => (typeof what === 'string' ? screen.includes(what) : what(screen)),
        label ?? `the screen to show ${typeof what === 'string' ? JSON.stringify(what) : 'what the test expects'}`,
      ),
    exited,
    resize: (c, r) => {
      pty.resize(c, r);
      term.resize(c, r);
    },
    kill: () => {
      try {
        pty.kill();
      } catch {
        // already gone
      }
    },
  };
}
