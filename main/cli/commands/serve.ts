/**
 * `contactor serve`: the bridge in this process, built through wiring (the only verb that does). Loaded
 * lazily so the other verbs never load the store, Koa or the backends.
 */
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { resourcesDir } from '../install-paths.js';
import { agentCount, reportServeEvents } from '../render/serve-events.js';

export async function serve(cli: CliContext, opts: { port?: number; host?: string; quiet?: boolean }): Promise<number> {
  const { createBridge } = await import('../../wiring/wiring.js');
  let bridge: Awaited<ReturnType<typeof createBridge>> | undefined;
  // SIGINT/SIGTERM on POSIX; on Windows `contactor down` asks over HTTP, as there are no signals to catch.
  let stopRequested = (): void => undefined;
  const stopping = new Promise<void>((resolve) => {
    stopRequested = resolve;
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  try {
    bridge = await createBridge({
      ...(cli.opts.config ? { configPath: cli.opts.config } : {}),
      ...(cli.opts.dataDir ? { dataDir: cli.opts.dataDir } : {}),
      ...(opts.port !== undefined ? { port: opts.port } : {}),
      ...(opts.host ? { host: opts.host } : {}),
      resourcesDir: resourcesDir(),
      env: cli.env,
      onShutdownRequested: () => stopRequested(),
    });
    await bridge.start();
  } catch (err) {
    await bridge?.stop().catch(() => undefined);
    throw new CliError(`cannot start the bridge: ${(err as Error).message}`, EXIT.usage);
  }
  const names = Object.keys(bridge.config.config.agents);
  const { created, path: configPath } = bridge.config;
  if (cli.json)
    cli.out.doc({
      url: bridge.url,
      pid: process.pid,
      agents: names,
      dataDir: bridge.config.dataDir,
      config: configPath,
      ...(created ? { configCreated: true } : {}),
    });
  else {
    if (created)
      cli.out.line(
        `wrote the default config to ${configPath} (a demo agent, echo, and commented examples); edit it and the bridge applies each save`,
      );
    cli.out.line(`contactor bridge on ${bridge.url} — ${agentCount(names)}`);
  }
  // Reloads and task state changes, one line each, until it stops (README.md#cli).
  const stopReporting = opts.quiet ? () => undefined : reportServeEvents(bridge, cli.out);
  // A stray rejection in an agent's plumbing must not take down every other agent's work.
  const report = (err: unknown): void => bridge?.reportInternal(err);
  process.on('unhandledRejection', report);
  await stopping;
  process.off('unhandledRejection', report);
  // Still reporting while it stops: the agents it stops and the tasks that end with it are said too.
  await bridge.stop();
  stopReporting();
  cli.out.line('stopped');
  return EXIT.completed;
}
