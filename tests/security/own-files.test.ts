/**
 * An ACP agent with file access attacks the bridge's own files as an attacker would, over real ACP (the
 * fake agent, SDK agent side) on a real bridge: its config.yaml is a symlink into the agent's workspace
 * (the home, as GNU stow links dotfiles), and hard links in the workspace name the token file and the
 * config under other names. Every write is refused and leaves the file as it was; every read is refused
 * and shows nothing of it.
 */
import { linkSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBridge, type Bridge } from '../../main/wiring/wiring.js';
import { fakeAcpAgent, tempDir, writeTestConfig } from '../helpers/bridge.js';

interface StowedBridge {
  bridge: Bridge;
  home: string;
  /** ~/.config/contactor/config.yaml: a symlink to `target`. */
  configLink: string;
  /** ~/dotfiles/contactor/config.yaml: the file itself, inside the agent's root (the home). */
  target: string;
  dataDir: string;
  send(text: string): Promise<string>;
}

let open: { bridge: Bridge; home: string }[] = [];
afterEach(async () => {
  for (const { bridge, home } of open) {
    await bridge.stop();
    rmSync(home, { recursive: true, force: true });
  }
  open = [];
});

/** A bridge whose config is linked the way GNU stow links it, with one ACP agent rooted at the home. */
async function stowedBridge(): Promise<StowedBridge> {
  const home = realpathSync(tempDir());
  const dotfiles = path.join(home, 'dotfiles', 'contactor');
  mkdirSync(dotfiles, { recursive: true });
  const { configPath: target } = writeTestConfig(dotfiles, {
    dataDir: path.join(home, '.local', 'state', 'contactor'),
    agents: { acp: fakeAcpAgent() },
  });
  const configLink = path.join(home, '.config', 'contactor', 'config.yaml');
  mkdirSync(path.dirname(configLink), { recursive: true });
  symlinkSync(target, configLink);
  const bridge = await createBridge({ configPath: configLink, env: { PATH: process.env.PATH, HOME: home } });
  open.push({ bridge, home });
  await bridge.start();
  const send = async (text: string): Promise<string> => {
    const res = await fetch(`${bridge.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bridge.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { agent: 'acp', text } }),
    });
    const body = (await res.json()) as { result: { artifacts: { parts: { text: string }[] }[] } };
    return body.result.artifacts[0]!.parts[0]!.text.trim();
  };
  return { bridge, home, configLink, target, dataDir: bridge.config.dataDir, send };
}

/** An agent that would print the install token: what the attacker appends to the config. */
function evilConfig(dataDir: string): string {
  // One line (flow YAML): the fake agent joins its words with single spaces.
  return `{port: 0, data_dir: ${dataDir}, agents: {evil: {kind: subprocess_cli, command: [cat, ${dataDir}/token]}}}`;
}

describe("an ACP agent never reaches the bridge's own files by another name", () => {
  it('refuses fs/write_text_file to the symlinked config file target; the file stays as it was', async () => {
    const b = await stowedBridge();
    const before = readFileSync(b.target, 'utf8');
    const reply = await b.send(`fs-write ${b.target} ${evilConfig(b.dataDir)}`);
    expect(reply).toMatch(/^error=-32602 .*bridge's own data or config/);
    expect(readFileSync(b.target, 'utf8')).toBe(before);
    // Reading it is refused too (it names the agents' commands and the data dir).
    expect(await b.send(`fs-read ${b.target}`)).toMatch(/^error=-32602/);
    // The agent's other files in the same folder are served as before.
    expect(await b.send(`fs-write ${path.join(path.dirname(b.target), 'notes.txt')} hello`)).toBe('written');
    expect(await b.send(`fs-read ${path.join(path.dirname(b.target), 'notes.txt')}`)).toBe('content=hello');
  });

  it('refuses a hard link to the token file (read) and to the config file (write)', async () => {
    const b = await stowedBridge();
    const token = path.join(b.dataDir, 'token');
    const linkedToken = path.join(b.home, 'work', 'readme.txt');
    const linkedConfig = path.join(b.home, 'work', 'settings.yaml');
    mkdirSync(path.dirname(linkedToken));
    linkSync(token, linkedToken);
    linkSync(b.target, linkedConfig);
    const read = await b.send(`fs-read ${linkedToken}`);
    expect(read).toMatch(/^error=-32602 .*bridge's own files/);
    expect(read).not.toContain(b.bridge.token);
    const before = readFileSync(b.target, 'utf8');
    const write = await b.send(`fs-write ${linkedConfig} ${evilConfig(b.dataDir)}`);
    expect(write).toMatch(/^error=-32602 .*bridge's own files/);
    expect(readFileSync(b.target, 'utf8')).toBe(before);
    expect(readFileSync(token, 'utf8').trim()).toBe(b.bridge.token);
  });
});
