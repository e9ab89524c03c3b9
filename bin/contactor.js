#!/usr/bin/env node
// The `contactor` launcher. Plain JavaScript with old syntax only, so any Node can read it and say what is
// wrong: the CLI needs Node >= 22.14 (Node-API 10, for better-sqlite3 13, which crashes on older Nodes).
// An older Node re-runs this file on the pinned Node from node_modules (the npm `node` package), else
// exits 2 with what to do. Then it loads the built CLI, or the TypeScript source through tsx in a fresh clone.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

var MIN = [22, 14];
var self = fileURLToPath(import.meta.url);
var root = path.resolve(path.dirname(self), '..');

function supported(version) {
  var parts = version.split('.').map(Number);
  return parts[0] > MIN[0] || (parts[0] === MIN[0] && parts[1] >= MIN[1]);
}

/** The npm `node` package links its binary to bin/node (bin/node.exe on Windows). */
function pinnedNode() {
  var candidates = [
    path.join(root, 'node_modules', 'node', 'bin', 'node'),
    path.join(root, 'node_modules', 'node', 'bin', 'node.exe'),
  ];
  for (var i = 0; i < candidates.length; i += 1) if (existsSync(candidates[i])) return candidates[i];
  return undefined;
}

/** What a shell reports for a process a signal ended: 128 + the signal's number. */
var SIGNAL_EXIT = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * The CLI runs as a child in this process's group, so a Ctrl-C on the terminal reaches both; a `kill` to this
 * pid (a script stopping it) reaches this process alone. Node cannot say who sent a signal, so each one is
 * passed on as a message, not as a second signal, and the CLI counts the copies of each signal that reach it
 * (main/cli/launcher-signals.ts): one Ctrl-C is one either way. On Windows the console delivers Ctrl-C and its
 * closing to every process attached to it, and a signal "sent" to a process ends it outright: nothing to pass on.
 */
function relaunch(node) {
  var env = Object.assign({}, process.env, { CONTACTOR_RELAUNCHED: '1' });
  var child = spawn(node, [self].concat(process.argv.slice(2)), {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: env,
  });
  Object.keys(SIGNAL_EXIT).forEach(function (signal) {
    process.on(signal, function () {
      if (process.platform === 'win32' || !child.connected) return;
      child.send({ contactorSignal: signal }, function () {
        // The CLI has ended or is ending: its exit decides ours.
      });
    });
  });
  child.on('error', function (err) {
    process.stderr.write('contactor: could not start ' + node + ': ' + err.message + '\n');
    process.exit(2);
  });
  child.on('exit', function (code, signal) {
    process.exit(code === null ? SIGNAL_EXIT[signal] || 128 : code);
  });
}

function start() {
  // It runs on every hand-off an agent makes, so start-up counts (issue 15 item 11): reuse the code Node
  // compiled on an earlier run (node:module enableCompileCache, Node >= 22.1; the cache is in the temp folder).
  if (module.enableCompileCache) module.enableCompileCache();
  var built = path.join(root, 'out', 'cli', 'contactor.mjs');
  if (existsSync(built)) return import(pathToFileURL(built).href);
  // A fresh clone without `npm run build`: run the source.
  return import('tsx/esm/api').then(function (tsx) {
    tsx.register();
    return import(pathToFileURL(path.join(root, 'main', 'cli', 'index.ts')).href);
  });
}

/** `--version` needs nothing but package.json: answered by any Node, without loading the CLI. */
function versionOnly() {
  var args = process.argv.slice(2);
  return args.length === 1 && (args[0] === '--version' || args[0] === '-V');
}

if (versionOnly()) {
  process.stdout.write(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version + '\n');
} else if (!process.versions.electron && !supported(process.versions.node)) {
  var pinned = process.env.CONTACTOR_RELAUNCHED ? undefined : pinnedNode();
  if (pinned) relaunch(pinned);
  else {
    process.stderr.write(
      'contactor needs Node ≥ ' +
        MIN.join('.') +
        ' (found v' +
        process.versions.node +
        '). ' +
        'Install a newer Node, or run it through npm (`npx contactor ...`) to use the Node pinned in node_modules.\n',
    );
    process.exit(2);
  }
} else {
  start().catch(function (err) {
    process.stderr.write(
      'contactor: could not load the CLI: ' + (err && err.message ? err.message : String(err)) + '\n',
    );
    process.exit(2);
  });
}
