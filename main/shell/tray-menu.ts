/**
 * The tray's context menu as a plain template (the shape of Electron's MenuItemConstructorOptions), built
 * from TrayState alone. Electron is only touched by tray.ts, which hands this to Menu.buildFromTemplate.
 */
import type { TrayState } from './tray-state.js';

export interface MenuTemplateItem {
  label?: string;
  type?: 'normal' | 'separator' | 'checkbox' | 'submenu';
  enabled?: boolean;
  checked?: boolean;
  toolTip?: string;
  submenu?: MenuTemplateItem[];
  click?: () => void;
}

/** What the menu's items do; implemented by the shell (app.ts). */
export interface TrayActions {
  openApprovals(): void;
  openActivity(): void;
  copyTaskId(taskId: string): void;
  setStartAtLogin(enabled: boolean): void;
  openConfig(): void;
  reloadConfig(): void;
  copyWslSetup(): void;
  openLogs(): void;
  quit(): void;
}

const SEPARATOR: MenuTemplateItem = { type: 'separator' };

export function buildTrayMenu(state: TrayState, actions: TrayActions): MenuTemplateItem[] {
  return [
    { label: menuText(state.headline), enabled: false },
    SEPARATOR,
    ...agentItems(state),
    SEPARATOR,
    { label: `Approvals (${state.pendingCount})`, click: () => actions.openApprovals() },
    { label: 'Activity', click: () => actions.openActivity() },
    {
      label: 'Recent tasks',
      type: 'submenu',
      enabled: state.recent.length > 0,
      submenu: state.recent.map((t) => ({
        label: menuText(t.label),
        toolTip: 'Copy the task id',
        click: () => actions.copyTaskId(t.id),
      })),
    },
    SEPARATOR,
    {
      label: 'Start at login',
      type: 'checkbox',
      checked: state.startAtLogin,
      // Electron flips `checked` before `click`; the new value comes from the state, not from the item.
      click: () => actions.setStartAtLogin(!state.startAtLogin),
    },
    { label: 'Open config', click: () => actions.openConfig() },
    { label: 'Reload config', click: () => actions.reloadConfig() },
    {
      label: 'Copy WSL CLI setup',
      enabled: state.wslSetup !== undefined,
      toolTip: 'Copies the commands that link the contactor CLI into ~/.local/bin in WSL',
      click: () => actions.copyWslSetup(),
    },
    { label: 'Open logs', click: () => actions.openLogs() },
    SEPARATOR,
    { label: 'Quit Contactor', click: () => actions.quit() },
  ];
}

function agentItems(state: TrayState): MenuTemplateItem[] {
  if (!state.running) return [{ label: 'No agents while the bridge is stopped', enabled: false }];
  if (state.agents.length === 0) return [{ label: 'No agents configured: open the config to add one', enabled: false }];
  return state.agents.map((a) => ({ label: menuText(`${a.name}: ${a.activity}`), enabled: false }));
}

/** Windows menus read `&` as a mnemonic marker; text from tasks and agents must show it literally. */
export function menuText(text: string): string {
  return text.replace(/&/g, '&&');
}
