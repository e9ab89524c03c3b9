/**
 * How each install runs its own CLI, as a Windows/native agent and as a WSL agent starts it (the command
 * offered as `contactor mcp`). The layouts are the packaged app's (electron-builder.yml extraResources:
 * resources/cli/contactor.exe, contactor.cjs and the WSL wrapper `contactor`) and an npm install's.
 */
import { describe, expect, it } from 'vitest';
import { contactorCli, contactorCliFromWsl, type CliInstall } from '../../main/backends/process/contactor-cli.js';

const INSTALL = 'C:\\Users\\Zoë\\AppData\\Local\\Programs\\contactor';
const CLI_DIR = `${INSTALL}\\resources\\cli`;
const PASSED = ['CONTACTOR_URL', 'CONTACTOR_TOKEN', 'CONTACTOR_AGENT'];

function packaged(files: string[]): CliInstall {
  return {
    hostPlatform: 'win32',
    execPath: `${INSTALL}\\Contactor.exe`,
    appExe: `${INSTALL}\\Contactor.exe`,
    cliDir: CLI_DIR,
    packageRoot: `${INSTALL}\\resources\\app.asar`,
    exists: (file) => files.includes(file),
  };
}

const NPM_ON_WINDOWS: CliInstall = {
  hostPlatform: 'win32',
  execPath: 'C:\\Program Files\\nodejs\\node.exe',
  appExe: undefined,
  cliDir: undefined,
  packageRoot: 'C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\contactor',
  exists: (file) => file === 'C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\contactor\\bin\\contactor.js',
};

describe('contactorCli', () => {
  it('the packaged app: its native launcher when it has one', () => {
    expect(contactorCli(packaged([`${CLI_DIR}\\contactor.exe`]))).toEqual({
      program: `${CLI_DIR}\\contactor.exe`,
      args: [],
      env: {},
    });
  });

  it('an older packaged app without the launcher: the app exe in Node mode with the bundled CLI', () => {
    expect(contactorCli(packaged([]))).toEqual({
      program: `${INSTALL}\\Contactor.exe`,
      args: [`${CLI_DIR}\\contactor.cjs`],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
  });

  it('an npm install: the Node running the bridge with bin/contactor.js', () => {
    expect(contactorCli(NPM_ON_WINDOWS)).toEqual({
      program: 'C:\\Program Files\\nodejs\\node.exe',
      args: ['C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\contactor\\bin\\contactor.js'],
      env: {},
    });
  });

  it('no CLI to run (no launcher script in the package): nothing', () => {
    expect(contactorCli({ ...NPM_ON_WINDOWS, exists: () => false })).toBeUndefined();
  });
});

describe('contactorCliFromWsl', () => {
  it('the packaged app: its WSL wrapper seen from the distro (it hands the CONTACTOR_ variables on itself)', () => {
    expect(contactorCliFromWsl(packaged([`${CLI_DIR}\\contactor.exe`]), 'Ubuntu', PASSED)).toEqual({
      program: '/mnt/c/Users/Zoë/AppData/Local/Programs/contactor/resources/cli/contactor',
      args: [],
      env: {},
    });
  });

  it('an npm install on Windows: the Windows Node seen from WSL, with WSLENV naming what must cross', () => {
    expect(contactorCliFromWsl(NPM_ON_WINDOWS, 'Ubuntu', PASSED)).toEqual({
      program: '/mnt/c/Program Files/nodejs/node.exe',
      args: ['C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\contactor\\bin\\contactor.js'],
      env: { WSLENV: 'CONTACTOR_URL:CONTACTOR_TOKEN:CONTACTOR_AGENT' },
    });
  });

  it('a bridge that is not on Windows has no Windows CLI for a WSL agent', () => {
    const linux: CliInstall = { ...NPM_ON_WINDOWS, hostPlatform: 'linux', exists: () => true };
    expect(contactorCliFromWsl(linux, undefined, PASSED)).toBeUndefined();
  });
});
