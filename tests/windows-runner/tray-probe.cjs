// Loaded into the app's main process before its own code, by electron-smoke.ts (`-r` in Playwright's `_electron`
// launch args; Electron's default_app loads every `-r`/`--require` module before the app). Electron offers no
// list of an app's Tray objects, so this keeps every Tray the app gives a tooltip (main/shell/tray.ts sets one
// in its constructor) where `electronApp.evaluate` can read it, and wakes whoever waits for the first one.
'use strict';
/* global require */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS preload: `-r` loads it with require
const { Tray } = require('electron');

const probe = { trays: [], tooltips: [], waiting: [] };
globalThis.__contactorTrayProbe = probe;

const setToolTip = Tray.prototype.setToolTip;
Tray.prototype.setToolTip = function (text) {
  if (!probe.trays.includes(this)) probe.trays.push(this);
  probe.tooltips.push(text);
  for (const wake of probe.waiting.splice(0)) wake();
  return setToolTip.call(this, text);
};
