/** `serve` (the bridge in the foreground), `up` (start one if none answers) and `down` (stop it). */
import { InvalidArgumentError, type Command } from 'commander';
import { removeDiscovery } from '../../config/data-dir.js';
import { BridgeClient } from '../bridge-client/bridge-client.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { ensureBridge } from '../bridge-client/launch-bridge.js';
import { readDiscovery, readTokenFile } from '../bridge-client/locate.js';
import { isAlive, isGone } from '../bridge-client/pid.js';
import { dataDirOf } from '../settings.js';
import { serve } from './serve.js';

const STOP_TIMEOUT_MS = 15_000;
/** How long an exited bridge may wait to be reaped before `down` reports it stopped anyway. */
const REAP_TIMEOUT_MS = 5_000;

export function registerLifecycle(program: Command, run: Runner): void {
  program
    .command('serve')
    .description('run the bridge in the foreground (Ctrl-C stops it)')
    .option('--port <port>', 'listen on this port (0 = any free port)', parsePort)
    .option('--host <host>', 'listen on this address')
    .option('--quiet', 'print only the banner: no line per config reload or task state change')
    .action(run(serve));
  program
    .command('up')
    .description('make sure a bridge runs: reuse the one that answers, else start one in the background')
    .option('--headless', 'start a bridge without the desktop app (on Windows, up starts the tray app when installed)')
    .option('--port <port>', 'start it on this port instead of the configured one (0 = any free port)', parsePort)
    .action(run(up));
  program.command('down').description('stop the running bridge').action(run(down));
}

async function up(cli: CliContext, opts: { headless?: boolean; port?: number }): Promise<number> {
  const ensured = await ensureBridge(
    {
      ...cli.opts,
      ...(opts.headless ? { headless: true } : {}),
      ...(opts.port !== undefined ? { port: opts.port } : {}),
    },
    cli.env,
    // Said before the start, which may still refuse (a port in use): the file is written either way.
    (file) => cli.out.line(`wrote the default config to ${file} (a demo agent, echo, and commented examples)`),
  );
  const { url } = ensured.address;
  if (cli.json)
    cli.out.doc({
      url,
      started: ensured.started,
      ...(ensured.mode ? { mode: ensured.mode } : {}),
      ...(ensured.pid ? { pid: ensured.pid } : {}),
      ...(ensured.log ? { log: ensured.log } : {}),
      ...(ensured.configCreated ? { configCreated: ensured.configCreated } : {}),
    });
  else if (ensured.started && ensured.mode === 'desktop')
    cli.out.line(`started the desktop app; its bridge is at ${url} (pid ${ensured.pid}); logs: ${ensured.log}`);
  else if (ensured.started) cli.out.line(`started the bridge at ${url} (pid ${ensured.pid}); log: ${ensured.log}`);
  else cli.out.line(`already running at ${url}${ensured.pid ? ` (pid ${ensured.pid})` : ''}`);
  return EXIT.completed;
}

async function down(cli: CliContext): Promise<number> {
  const dataDir = dataDirOf(cli.opts, cli.env);
  const discovery = readDiscovery(dataDir);
  if (!discovery || !isAlive(discovery.pid)) {
    if (discovery) removeDiscovery(dataDir, discovery.pid);
    if (cli.json) cli.out.doc({ stopped: false, running: false });
    else cli.out.line('not running');
    return EXIT.completed;
  }
  const token = discovery.token ?? readTokenFile(dataDir);
  const client = new BridgeClient({ url: discovery.url, dataDir, ...(token ? { token } : {}) });
  const health = await client.health();
  // A pid from a stale file may belong to another program by now: signal only the bridge that says it is that pid.
  if (health?.pid !== discovery.pid) {
    throw new CliError(
      `the discovery file names pid ${discovery.pid}, but no bridge with that pid answers at ${discovery.url}; not signalling it (stop it yourself if it is a hung bridge)`,
      EXIT.unreachable,
    );
  }
  // A clean stop on every platform (on Windows process.kill is TerminateProcess: no cleanup at all); a bridge
  // that does not offer the request (an older one) gets SIGTERM.
  if (!(await client.requestShutdown())) process.kill(discovery.pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(discovery.pid)) {
    if (Date.now() > deadline)
      throw new CliError(
        `the bridge (pid ${discovery.pid}) did not stop within ${STOP_TIMEOUT_MS / 1000}s`,
        EXIT.failed,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // "Stopped" once the pid is gone: a script that checks right after `down` must not still find it.
  const reaped = Date.now() + REAP_TIMEOUT_MS;
  while (!isGone(discovery.pid) && Date.now() < reaped) await new Promise((resolve) => setTimeout(resolve, 50));
  if (cli.json) cli.out.doc({ stopped: true, pid: discovery.pid, url: discovery.url });
  else cli.out.line(`stopped the bridge at ${discovery.url} (pid ${discovery.pid})`);
  return EXIT.completed;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('give a port from 0 to 65535');
  return n;
}
