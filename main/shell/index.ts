/** The Electron main entry (package.json `main` → out/main/index.js). */
import { app, dialog } from 'electron';
import { launch } from './app.js';

launch({ argv: process.argv, env: process.env }).catch((err: unknown) => {
  dialog.showErrorBox('Contactor could not start', err instanceof Error ? err.message : String(err));
  app.exit(1);
});
