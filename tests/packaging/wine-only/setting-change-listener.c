/*
 * Wine-only test helper (tests/packaging/installer-nsh.test.ts): a hidden top-level window, as Explorer and
 * terminals have, that waits for WM_SETTINGCHANGE with lParam "Environment" — what a program must see to pick up a
 * changed PATH (Microsoft Learn, "WM_SETTINGCHANGE") — and reports it. Writes "ready" to argv[1] once the window
 * exists, "Environment" when the broadcast arrives (exit 0); gives up after 90 s (exit 1). HWND_BROADCAST reaches
 * only top-level windows, not message-only ones, hence a real (never shown) window.
 */
#include <windows.h>
#include <string.h>

static const wchar_t *out;

static void put(const char *text) {
  HANDLE f = CreateFileW(out, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
  DWORD n;
  if (f == INVALID_HANDLE_VALUE) return;
  WriteFile(f, text, (DWORD)strlen(text), &n, NULL);
  CloseHandle(f);
}

static LRESULT CALLBACK proc(HWND h, UINT m, WPARAM w, LPARAM l) {
  if (m == WM_SETTINGCHANGE && l && lstrcmpW((const wchar_t *)l, L"Environment") == 0) {
    put("Environment");
    PostQuitMessage(0);
    return 0;
  }
  if (m == WM_TIMER) {
    PostQuitMessage(1);
    return 0;
  }
  return DefWindowProcW(h, m, w, l);
}

int wmain(int argc, wchar_t **argv) {
  if (argc < 2) return 2;
  out = argv[1];
  WNDCLASSW wc;
  ZeroMemory(&wc, sizeof wc);
  wc.lpfnWndProc = proc;
  wc.hInstance = GetModuleHandleW(NULL);
  wc.lpszClassName = L"ContactorSettingChangeListener";
  RegisterClassW(&wc);
  HWND h = CreateWindowExW(0, wc.lpszClassName, L"listener", WS_OVERLAPPED, 0, 0, 10, 10, NULL, NULL, wc.hInstance, NULL);
  if (!h) return 3;
  SetTimer(h, 1, 90000, NULL);
  put("ready");
  MSG msg;
  BOOL r;
  while ((r = GetMessageW(&msg, NULL, 0, 0)) > 0) DispatchMessageW(&msg);
  return r == 0 ? (int)msg.wParam : 4;
}
