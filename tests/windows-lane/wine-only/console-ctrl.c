/*
 * Wine lane only — never shipped. Plays the console a person presses Ctrl-C in:
 *   console-ctrl.exe C|B <go-file> <command line>
 * (Wine 8 refuses CTRL_BREAK_EVENT: B fails there, exit 91.)
 * It gets a console of its own (AllocConsole), starts the command line on it (stdio: its own std handles, the
 * test's pipes), waits until <go-file> exists (the test writes it once the program is ready), then raises
 * Ctrl-C (C) or Ctrl-Break (B) on the console with GenerateConsoleCtrlEvent(event, 0): group 0 is every process
 * attached to the console, as when the keys are pressed (learn.microsoft.com, "GenerateConsoleCtrlEvent").
 * It exits with the program's exit code; 90 if it cannot set up, 91 if the event cannot be raised (it then
 * ends the program).
 * Its own handler swallows the event; a handler, not SetConsoleCtrlHandler(NULL, TRUE), whose "ignore Ctrl-C"
 * flag the program would inherit.
 */
#include <windows.h>
#include <wchar.h>

static BOOL WINAPI swallow(DWORD type) {
  (void)type;
  return TRUE;
}

/* The command line after the first `skip` arguments (plain tokens: no quotes in C|B and the go-file path). */
static wchar_t *after_arguments(wchar_t *line, int skip) {
  wchar_t *p = line;
  for (int i = 0; i <= skip; ++i) {
    while (*p == L' ' || *p == L'\t') ++p;
    if (*p == L'"') {
      ++p;
      while (*p && *p != L'"') ++p;
      if (*p) ++p;
    } else {
      while (*p && *p != L' ' && *p != L'\t') ++p;
    }
  }
  while (*p == L' ' || *p == L'\t') ++p;
  return p;
}

int wmain(int argc, wchar_t **argv) {
  if (argc < 4) return 90;
  DWORD event = argv[1][0] == L'B' ? CTRL_BREAK_EVENT : CTRL_C_EVENT;
  const wchar_t *go = argv[2];
  HANDLE std[3] = {GetStdHandle(STD_INPUT_HANDLE), GetStdHandle(STD_OUTPUT_HANDLE), GetStdHandle(STD_ERROR_HANDLE)};
  for (int i = 0; i < 3; ++i) SetHandleInformation(std[i], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
  FreeConsole();
  if (!AllocConsole()) return 90;
  SetConsoleCtrlHandler(swallow, TRUE);

  STARTUPINFOW si;
  ZeroMemory(&si, sizeof si);
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = std[0];
  si.hStdOutput = std[1];
  si.hStdError = std[2];
  PROCESS_INFORMATION pi;
  wchar_t *command = after_arguments(GetCommandLineW(), 2);
  if (!CreateProcessW(NULL, command, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) return 90;
  CloseHandle(pi.hThread);
  while (GetFileAttributesW(go) == INVALID_FILE_ATTRIBUTES) {
    if (WaitForSingleObject(pi.hProcess, 25) == WAIT_OBJECT_0) break;
  }
  if (WaitForSingleObject(pi.hProcess, 0) == WAIT_TIMEOUT && !GenerateConsoleCtrlEvent(event, 0)) {
    TerminateProcess(pi.hProcess, 91);
  }
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = 90;
  GetExitCodeProcess(pi.hProcess, &code);
  return (int)code;
}
