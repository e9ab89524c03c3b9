/*
 * Wine lane only — never shipped. A stand-in Contactor.exe for what the console sees of it: Electron's exe is a
 * GUI-subsystem program, and in Node mode with valid std handles it never attaches to the console (Chromium
 * base/process/launch_win.cc, RouteStdioToConsole, returns early), so console control events never reach it.
 * node.exe is a console program, and Wine 8 also hands the console to GUI children, so this GUI program leaves
 * it (FreeConsole) and runs node.exe (next to it) with its own command tail, std handles and exit code, but
 * DETACHED_PROCESS: no console.
 * node.exe is held in a kill-on-close job, so it ends with this process, as Electron's Node does with Electron.
 */
#include <windows.h>
#include <wchar.h>

static const wchar_t *tail_of(const wchar_t *line) {
  const wchar_t *p = line;
  if (*p == L'"') {
    ++p;
    while (*p && *p != L'"') ++p;
    if (*p) ++p;
  } else {
    while (*p && *p != L' ' && *p != L'\t') ++p;
  }
  return p; /* keeps the blank before the first argument */
}

int WINAPI wWinMain(HINSTANCE instance, HINSTANCE previous, PWSTR unused, int show) {
  (void)instance;
  (void)previous;
  (void)unused;
  (void)show;
  FreeConsole();
  wchar_t node[32768];
  DWORD len = GetModuleFileNameW(NULL, node, 32000);
  wchar_t *slash = wcsrchr(node, L'\\');
  if (!len || !slash) return 90;
  wcscpy(slash + 1, L"node.exe");
  const wchar_t *tail = tail_of(GetCommandLineW());
  size_t size = wcslen(node) + wcslen(tail) + 8;
  wchar_t *line = HeapAlloc(GetProcessHeap(), 0, size * sizeof *line);
  if (!line) return 90;
  _snwprintf(line, size, L"\"%ls\"%ls", node, tail);
  line[size - 1] = 0;

  HANDLE job = CreateJobObjectW(NULL, NULL);
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
  ZeroMemory(&limits, sizeof limits);
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK;
  if (job) SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);

  STARTUPINFOW si;
  ZeroMemory(&si, sizeof si);
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
  si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  PROCESS_INFORMATION pi;
  if (!CreateProcessW(node, line, NULL, NULL, TRUE, DETACHED_PROCESS | CREATE_SUSPENDED, NULL, NULL, &si, &pi))
    return 90;
  if (job) AssignProcessToJobObject(job, pi.hProcess);
  ResumeThread(pi.hThread);
  CloseHandle(pi.hThread);
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = 90;
  GetExitCodeProcess(pi.hProcess, &code);
  return (int)code;
}
