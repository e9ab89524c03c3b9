/**
 * The folders a one-click Allow never reads (protected-dirs.ts), and the attack they stop: an agent that works in
 * the person's profile reading (or, answered blind, planting) the config the Windows config move reads —
 * %APPDATA%\contactor\config.yaml (config-move.ts) — through a toast's Allow.
 */
import { describe, expect, it } from 'vitest';
import type { PermissionPending } from '../../main/domain/pending.js';
import type { Task } from '../../main/domain/task.js';
import { protectedDirsFor } from '../../main/shell/protected-dirs.js';
import { toastPlanFor } from '../../main/shell/toast-plan.js';

const WINDOWS_ENV = {
  USERPROFILE: 'C:\\Users\\u',
  APPDATA: 'C:\\Users\\u\\AppData\\Roaming',
  LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local',
};

describe('protectedDirsFor', () => {
  it('Windows: the data dir, the loaded config folder, both ends of the config move, the credential folders', () => {
    const dirs = protectedDirsFor({
      dataDir: 'C:\\Users\\u\\AppData\\Local\\contactor',
      configPath: 'D:\\cfg\\contactor.yaml',
      env: WINDOWS_ENV,
      platform: 'win32',
      home: 'C:\\Users\\u',
    });
    expect(dirs.slice(0, 5)).toEqual([
      'C:\\Users\\u\\AppData\\Local\\contactor',
      'D:\\cfg',
      'C:\\Users\\u\\.contactor',
      'C:\\Users\\u\\AppData\\Roaming\\contactor',
      'C:\\Users\\u\\.ssh',
    ]);
    // The home's credential folders follow (the whole list: tests/shell/low-risk-where.test.ts).
    expect(dirs).toEqual(
      expect.arrayContaining([
        'C:\\Users\\u\\.aws', 'C:\\Users\\u\\.gnupg', 'C:\\Users\\u\\.config\\gh', 'C:\\Users\\u\\.netrc',
        'C:\\Users\\u\\AppData\\Roaming\\GitHub CLI', 'C:\\Users\\u\\AppData\\Roaming\\Microsoft\\Credentials',
      ]),
    ); // prettier-ignore
  });

  it('Windows, the bridge failed before reading its config: the default config folder and the old one still', () => {
    const dirs = protectedDirsFor({
      dataDir: 'C:\\Users\\u\\AppData\\Local\\contactor',
      configPath: undefined,
      env: WINDOWS_ENV,
      platform: 'win32',
      home: 'C:\\Users\\u',
    });
    expect(dirs.slice(0, 3)).toEqual([
      'C:\\Users\\u\\AppData\\Local\\contactor',
      'C:\\Users\\u\\.contactor',
      'C:\\Users\\u\\AppData\\Roaming\\contactor',
    ]);
  });

  it('Linux: no former folder (the move is Windows-only)', () => {
    const dirs = protectedDirsFor({
      dataDir: '/home/u/.local/state/contactor',
      configPath: '/home/u/.config/contactor/config.yaml',
      env: { HOME: '/home/u' },
      platform: 'linux',
      home: '/home/u',
    });
    expect(dirs.slice(0, 2)).toEqual(['/home/u/.local/state/contactor', '/home/u/.config/contactor']);
    expect(dirs).toEqual(expect.arrayContaining(['/home/u/.ssh', '/home/u/.config/gh']));
    expect(dirs.filter((d) => /Roaming[\\/]contactor$|\.contactor$/.test(d))).toEqual([]);
  });
});

/** An agent whose workspace is the whole profile asks to read a file: one-click Allow, or only Review…? */
function readRequest(file: string): Task {
  const pending: PermissionPending = {
    kind: 'permission',
    requestId: 'r1',
    toolCall: { title: `Read ${file}`, kind: 'read', locations: [{ path: file }] },
    options: [
      { optionId: 'ok', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' },
    ],
    workspace: 'C:\\Users\\u',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:30:00.000Z',
  };
  return {
    kind: 'task',
    id: 'task-1',
    contextId: 'ctx',
    status: { state: 'input-required', timestamp: '2026-01-01T00:00:00.000Z' },
    history: [],
    artifacts: [],
    metadata: {
      agent: 'dsh',
      requiresReview: true,
      createdAt: '2026-01-01T00:00:00.000Z',
      delegationDepth: 0,
      visitedAgents: [],
      pending,
    },
  };
}

describe('the attack: a one-click read of what the config move reads', () => {
  const protectedDirs = protectedDirsFor({
    dataDir: 'C:\\Users\\u\\AppData\\Local\\contactor',
    configPath: 'C:\\Users\\u\\.contactor\\config.yaml',
    env: WINDOWS_ENV,
    platform: 'win32',
    home: 'C:\\Users\\u',
  });

  it.each([
    'C:\\Users\\u\\AppData\\Roaming\\contactor\\config.yaml',
    'c:/users/u/appdata/roaming/CONTACTOR/config.yaml',
    'C:\\Users\\u\\AppData\\Roaming\\contactor\\config.yaml-MOVED.txt',
    'C:\\Users\\u\\.contactor\\config.yaml',
    'C:\\Users\\u\\AppData\\Local\\contactor\\token',
  ])('%s gets only Review…', (file) => {
    expect(toastPlanFor(readRequest(file), { protectedDirs })!.buttons).toEqual(['Review…']);
  });

  it('a file elsewhere in the workspace stays one-click (the list is not a blanket refusal)', () => {
    expect(toastPlanFor(readRequest('C:\\Users\\u\\notes.txt'), { protectedDirs })!.buttons).toEqual(['Allow', 'Deny']);
  });
});
