/**
 * Test runs only, never shipped: preloaded with `--require` in NODE_OPTIONS into every vitest worker and every
 * Node process the tests start (they inherit NODE_OPTIONS; tests/cli/run-cli.ts `cleanEnv` keeps it), through
 * the one-line preload tests/helpers/default-port-guard.ts writes beside the run's log. Every TCP connect goes
 * through net.Socket.prototype.connect (net.connect, node:http, fetch's undici): one aimed at the default
 * address, 127.0.0.1:8791 (where the user's own bridge listens), is refused as if nothing listened and
 * recorded to that log, which the global teardown reads. Nothing listens on the port, so the user's bridge can
 * run alongside.
 *
 * CommonJS and `--require`, not `--import`: any `--import` makes Node load the main script through the ES
 * module loader (lib/internal/modules/run_main.js `shouldUseESMLoader`), which refuses a script whose name has
 * no .js extension (ERR_UNKNOWN_FILE_EXTENSION), and the stand-ins for wsl.exe or Contactor.exe are exactly
 * that. A `--require` preload leaves how the main script loads as it is for users.
 */
'use strict';
/* global require, module */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload: `--require` loads it with require */
const { appendFileSync } = require('node:fs');
const net = require('node:net');
const { setImmediate } = require('node:timers');
/* eslint-enable @typescript-eslint/no-require-imports */

const DEFAULT_PORT = 8791;
const MARK = Symbol.for('contactor.default-port-hook');

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

/** Refuses and records to `log` every connect of this process to the default address (once per process). */
function guardConnects(log) {
  if (net.Socket.prototype[MARK]) return;
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

module.exports = { guardConnects };
