/**
 * Test runs only, never shipped: loaded with `--import` in NODE_OPTIONS into every vitest worker and every
 * Node process the tests start (they inherit NODE_OPTIONS; tests/cli/run-cli.ts `cleanEnv` keeps it). Every
 * TCP connect goes through net.Socket.prototype.connect (net.connect, node:http, fetch's undici): one aimed at
 * the default address, 127.0.0.1:8791 (where the user's own bridge listens), is refused as if nothing
 * listened and recorded to the file named by this module's `?log=` query, which the global teardown reads
 * (tests/helpers/default-port-guard.ts). Nothing listens on the port, so the user's bridge can run alongside.
 */
import { appendFileSync } from 'node:fs';
import net from 'node:net';
import { setImmediate } from 'node:timers';

const DEFAULT_PORT = 8791;
const MARK = Symbol.for('contactor.default-port-hook');
const log = new URL(import.meta.url).searchParams.get('log');

/** Hosts that reach this machine: a connect without a host goes to localhost. */
function isLocal(host) {
  if (host === undefined || host === null || host === '') return true;
  const h = String(host)
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return (
    h === 'localhost' ||
    h.startsWith('127.') ||
    h === '::1' ||
    h === '0.0.0.0' ||
    h === '::' ||
    h === '::ffff:127.0.0.1'
  );
}

/** The port and host of a Socket#connect call, in each form Node accepts (and the normalized array net.connect passes). */
function target(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object') return { port: first.port, host: first.host, path: first.path };
  return { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
}

if (log && !net.Socket.prototype[MARK]) {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function connectUnlessDefault(...args) {
    const { port, host, path } = target(args);
    // A truthy `path` is a pipe or Unix socket, as net.js reads it (node:http passes `path: null`).
    if (!path && Number(port) === DEFAULT_PORT && isLocal(host)) {
      const where = `${host ?? 'localhost'}:${DEFAULT_PORT}`;
      try {
        const record = {
          at: new Date().toISOString(),
          pid: process.pid,
          argv: process.argv,
          where,
          stack: new Error().stack,
        };
        appendFileSync(log, `${JSON.stringify(record)}\n`);
      } catch {
        // the run is over (its folder removed): nothing is left to report to
      }
      const err = Object.assign(new Error(`connect ECONNREFUSED ${where} (a test may not reach the default address)`), {
        code: 'ECONNREFUSED',
        errno: -111,
        syscall: 'connect',
        address: host ?? 'localhost',
        port: DEFAULT_PORT,
      });
      this.connecting = true;
      // After the caller has attached its listeners (node:http does so on the next tick), as a real refusal would.
      setImmediate(() => this.destroy(err));
      return this;
    }
    return connect.apply(this, args);
  };
  Object.defineProperty(net.Socket.prototype, MARK, { value: true });
}
