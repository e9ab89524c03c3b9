/**
 * Where the approval window goes: next to the tray icon, on the side away from the taskbar, kept inside
 * the display's work area. Pure geometry (same idea as the `menubar` package's getWindowPosition).
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const MARGIN = 8;

/**
 * `tray` is `Tray.getBounds()` (all zeros when unknown, e.g. opened by a second launch); `workArea` is the
 * matching display's work area, which excludes the taskbar.
 */
export function approvalWindowPosition(
  tray: Rect,
  workArea: Rect,
  size: { width: number; height: number },
): { x: number; y: number } {
  const known = tray.width > 0 && tray.height > 0;
  let x: number;
  let y: number;
  if (!known) {
    x = workArea.x + workArea.width - size.width - MARGIN;
    y = workArea.y + workArea.height - size.height - MARGIN;
  } else if (tray.y >= workArea.y + workArea.height) {
    // Taskbar at the bottom (the default): above the icon.
    x = tray.x + tray.width / 2 - size.width / 2;
    y = workArea.y + workArea.height - size.height - MARGIN;
  } else if (tray.y + tray.height <= workArea.y) {
    x = tray.x + tray.width / 2 - size.width / 2;
    y = workArea.y + MARGIN;
  } else if (tray.x + tray.width <= workArea.x) {
    x = workArea.x + MARGIN;
    y = tray.y + tray.height / 2 - size.height / 2;
  } else {
    x = workArea.x + workArea.width - size.width - MARGIN;
    y = tray.y + tray.height / 2 - size.height / 2;
  }
  return {
    x: Math.round(clamp(x, workArea.x + MARGIN, workArea.x + workArea.width - size.width - MARGIN)),
    y: Math.round(clamp(y, workArea.y + MARGIN, workArea.y + workArea.height - size.height - MARGIN)),
  };
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(value, Math.max(min, max)));
}
