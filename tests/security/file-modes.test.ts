/**
 * User-only files in the data dir, as the attacker found it: in a data dir that already existed with mode 755, the
 * database, its -wal/-shm and the log were created 0644, and another user read task text from the WAL.
 */
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirModesCheck } from '../../main/cli/doctor/data-dir-check.js';
import { ECHO_AGENT, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';

const modeOf = (p: string) => statSync(p).mode & 0o777;
let tb: TestBridge | undefined;
const umask = process.umask();
afterEach(async () => {
  process.umask(umask);
  await tb?.cleanup();
  tb = undefined;
});

describe.skipIf(process.platform === 'win32')('data dir modes', () => {
  it('makes a data dir that existed 755 user-only, and every file the bridge writes 0600', async () => {
    process.umask(0o022); // the usual default: files 0644 unless created otherwise
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    mkdirSync(path.join(dataDir, 'logs'), { recursive: true, mode: 0o755 });
    chmodSync(dataDir, 0o755);
    chmodSync(path.join(dataDir, 'logs'), 0o755);
    writeFileSync(path.join(dataDir, 'logs', 'old.log'), 'task text', { mode: 0o644 });
    tb = await startTestBridge({ dir, dataDir, agents: { echo: nodeFixture(ECHO_AGENT) }, isolatedEnv: true });
    expect((await tb.rpc('message/send', { agent: 'echo', text: 'private task text' })).result.status.state).toBe(
      'completed',
    );
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(path.join(dataDir, 'logs'))).toBe(0o700);
    for (const file of [
      'contactor.db',
      'contactor.db-wal',
      'contactor.db-shm',
      'logs/bridge.log',
      'logs/old.log',
      'token',
      'bridge.json',
      'audit/audit.jsonl',
    ]) {
      expect(modeOf(path.join(dataDir, file)).toString(8), file).toBe('600');
    }
    expect(dataDirModesCheck(dataDir, false).status).toBe('ok');
  });

  it('never follows a link an agent planted in the data dir: the files outside keep their modes', async () => {
    process.umask(0o022);
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const project = path.join(dir, 'project');
    mkdirSync(path.join(project, 'bin'), { recursive: true });
    writeFileSync(path.join(project, 'bin', 'build.sh'), '#!/bin/sh\necho built\n', { mode: 0o755 });
    writeFileSync(path.join(project, 'notes.md'), 'shared notes', { mode: 0o644 });
    chmodSync(path.join(project, 'bin'), 0o755);
    chmodSync(project, 0o755);
    // What an agent running as the person can do: links among the bridge's files, leading to its project.
    mkdirSync(path.join(dataDir, 'logs'), { recursive: true, mode: 0o755 });
    symlinkSync(project, path.join(dataDir, 'logs', 'project'));
    symlinkSync(path.join(project, 'notes.md'), path.join(dataDir, 'notes.md'));
    writeFileSync(path.join(project, 'README.md'), 'readme', { mode: 0o644 });
    linkSync(path.join(project, 'README.md'), path.join(dataDir, 'logs', 'README.md'));

    tb = await startTestBridge({ dir, dataDir, agents: { echo: nodeFixture(ECHO_AGENT) }, isolatedEnv: true });
    expect(modeOf(project)).toBe(0o755);
    expect(modeOf(path.join(project, 'bin'))).toBe(0o755);
    expect(modeOf(path.join(project, 'bin', 'build.sh'))).toBe(0o755);
    expect(modeOf(path.join(project, 'notes.md'))).toBe(0o644);
    expect(readFileSync(path.join(project, 'notes.md'), 'utf8')).toBe('shared notes');
    expect(modeOf(path.join(project, 'README.md'))).toBe(0o644);
    // The data dir's own entries are still made user-only, and doctor --fix leaves the links alone too.
    expect(modeOf(path.join(dataDir, 'logs'))).toBe(0o700);
    // doctor names the hard link (its mode is the outside file's) and --fix leaves every link alone.
    expect(dataDirModesCheck(dataDir, true)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(`${path.join(dataDir, 'logs', 'README.md')} 644`),
    });
    expect(modeOf(path.join(project, 'bin', 'build.sh'))).toBe(0o755);
    expect(modeOf(path.join(project, 'notes.md'))).toBe(0o644);
    expect(modeOf(path.join(project, 'README.md'))).toBe(0o644);
  });

  it('doctor names what is readable by others and --fix makes it user-only', () => {
    const dataDir = path.join(tempDir(), 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(path.join(dataDir, 'contactor.db-wal'), 'x', { mode: 0o600 });
    chmodSync(path.join(dataDir, 'contactor.db-wal'), 0o644);
    const check = dataDirModesCheck(dataDir, false);
    expect(check).toMatchObject({ status: 'fail', fix: expect.stringContaining('--fix') });
    expect(check.detail).toContain('contactor.db-wal 644');
    expect(dataDirModesCheck(dataDir, true).status).toBe('ok');
    expect(modeOf(path.join(dataDir, 'contactor.db-wal'))).toBe(0o600);
  });

  it('says plainly that modes mean nothing on a Windows drive, and that Windows relies on the ACL', () => {
    expect(dataDirModesCheck('/mnt/c/Users/me/contactor', false, 'linux')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('file modes mean nothing'),
    });
    expect(dataDirModesCheck('C:\\Users\\me\\AppData\\Local\\contactor', false, 'win32')).toMatchObject({
      status: 'skip',
      detail: expect.stringContaining('ACL'),
    });
  });
});
