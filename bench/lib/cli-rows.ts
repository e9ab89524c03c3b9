/**
 * The CLI section: `contactor --version` and `contactor agents` against a bare
 * `node -e 0` on the same Node, with a bridge of its own running, in a home and config of its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureCliStartup, olderSystemNode, type CliForm } from '../sections/cli-startup.js';
import { startBridgeChild } from './bridge-child.js';
import { REPO_ROOT } from './children.js';
import type { Figures } from './goals.js';
import { ms, type Row } from './report.js';

export async function cliStartup(opts: {
  buildDir: string;
  root: string;
  counts: { runs: number; warmup: number; npxRuns: number };
}): Promise<{ rows: Row[]; figures: Figures; results: Record<string, unknown> }> {
  const { root, counts } = opts;
  const dataDir = path.join(root, 'cli-data');
  const bridge = await startBridgeChild({
    buildDir: opts.buildDir,
    root,
    dataDir,
    agents: { echo: { kind: 'subprocess_cli', command: [process.execPath, '-e', '0'] } },
  });
  const bin = path.join(REPO_ROOT, 'bin', 'contactor.js');
  const older = olderSystemNode(process.env.PATH);
  const node = process.execPath;
  const forms: CliForm[] = [
    { name: 'bare', command: node, args: ['-e', '0'] },
    { name: 'version', command: node, args: [bin, '--version'] },
    // As the README calls it: no flags; the config (XDG_CONFIG_HOME below) names the data dir.
    { name: 'agents', command: node, args: [bin, 'agents'] },
    ...(older
      ? [
          { name: 'version, older node', command: older.path, args: [bin, '--version'] },
          { name: 'agents, older node', command: older.path, args: [bin, 'agents'] },
        ]
      : []),
  ];
  // A home and config of its own: the CLI finds the bench's bridge, never the user's.
  const xdgConfig = path.join(root, 'xdg-config');
  mkdirSync(path.join(xdgConfig, 'contactor'), { recursive: true });
  writeFileSync(path.join(xdgConfig, 'contactor', 'config.yaml'), `port: 0\ndata_dir: ${JSON.stringify(dataDir)}\n`);
  const env = {
    ...process.env,
    HOME: root,
    XDG_CONFIG_HOME: xdgConfig,
    CONTACTOR_URL: '',
    CONTACTOR_CONFIG: '',
    CONTACTOR_TOKEN: '',
  };
  try {
    const cli = await measureCliStartup({ forms, runs: counts.runs, warmup: counts.warmup, env });
    const npx = await measureCliStartup({
      forms: [{ name: 'npx', command: 'npx', args: ['--no-install', 'contactor', '--version'] }],
      runs: counts.npxRuns,
      warmup: 1,
      env: { ...env, npm_config_update_notifier: 'false' },
    });
    const m = cli.medianMs;
    const bare = m.bare!;
    const base = `${ms(bare)} node -e 0`;
    const rows: Row[] = [
      {
        section: 'CLI',
        measure: `contactor --version (median of ${cli.runs})`,
        contactor: ms(m.version!),
        baseline: base,
        comparison: `${(m.version! / bare).toFixed(2)}×`,
      },
      {
        section: 'CLI',
        measure: `contactor agents, bridge running (median of ${cli.runs})`,
        contactor: ms(m.agents!),
        baseline: base,
        comparison: `${(m.agents! / bare).toFixed(2)}×`,
      },
      ...(older
        ? [
            {
              section: 'CLI',
              measure: `relaunch from the system node ${older.version} (--version / agents)`,
              contactor: `${ms(m['version, older node']!)} / ${ms(m['agents, older node']!)}`,
              baseline: `${ms(m.version!)} / ${ms(m.agents!)} on node ${process.version}`,
              comparison: `+${ms(m['agents, older node']! - m.agents!)} per call`,
            },
          ]
        : []),
      {
        section: 'CLI',
        measure: `npx contactor --version (median of ${counts.npxRuns})`,
        contactor: ms(npx.medianMs.npx!),
        baseline: base,
        comparison: `${(npx.medianMs.npx! / bare).toFixed(1)}×`,
      },
    ];
    return {
      rows,
      figures: { 'cli.bareMs': bare, 'cli.versionMs': m.version!, 'cli.agentsMs': m.agents! },
      results: { ...cli, npxMedianMs: npx.medianMs.npx, ...(older ? { olderNode: older } : {}) },
    };
  } finally {
    await bridge.stop();
  }
}
