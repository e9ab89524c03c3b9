/*
 * contactor.exe: the Windows CLI launcher, installed in <install>\resources\cli (on the user's PATH).
 *
 * It runs <install>\Contactor.exe in Node mode (ELECTRON_RUN_AS_NODE=1) on the bundled CLI
 * <install>\resources\cli\contactor.cjs, and hands over its own command line tail exactly as it received it:
 * no batch file re-parses it (a `.cmd` wrapper's `%*` cuts a multi-line argument at the first line break,
 * expands %VAR% and splits on & | < > ^). Node parses the tail with the same MSVCRT rules the caller quoted for.
 * stdin/stdout/stderr are inherited, Ctrl-C reaches the child through the shared console (this process ignores
 * it and waits), the child's exit code is ours, and a job object ends the child if this process is killed.
 *
 * Built with MinGW-w64 (scripts/build.mjs): x86_64-w64-mingw32-gcc -municode -O2 -s -o contactor.exe contactor.c
 */
#define WIN32_LEAN_AND_MEAN
#ifndef UNICODE
#define UNICODE
#endif
#ifndef _UNICODE
#define _UNICODE
#endif
#include <windows.h>
#include <wchar.h>

#define EXIT_LAUNCH_FAILED 2

static void say(const wchar_t *what, const wchar_t *detail, DWORD error) {
  wchar_t text[4096];
  _snwprintf(text, sizeof text / sizeof *text - 1, L"contactor: %ls %ls (Windows error %lu)\r\n", what, detail,
             (unsigned long)error);
  text[sizeof text / sizeof *text - 1] = 0;
  char utf8[16384];
  int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, utf8, sizeof utf8, NULL, NULL);
  DWORD written;
  HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
  if (n > 1 && err && err != INVALID_HANDLE_VALUE) WriteFile(err, utf8, (DWORD)(n - 1), &written, NULL);
}

/*
 * The command line after the program name, untouched. The program name ends as CommandLineToArgvW and the
 * MSVCRT startup code say: at the closing quote when it starts with one (no escapes inside), else at the first
 * space or tab. The blanks after it are skipped.
 */
static const wchar_t *command_line_tail(const wchar_t *line) {
  const wchar_t *p = line;
  if (*p == L'"') {
    ++p;
    while (*p && *p != L'"') ++p;
    if (*p == L'"') ++p;
  } else {
    while (*p && *p != L' ' && *p != L'\t') ++p;
  }
  while (*p == L' ' || *p == L'\t') ++p;
  return p;
}

/* Ctrl-C and Ctrl-Break go to every process on the console, the child included: it decides; we wait for it. */
static BOOL WINAPI ignore_ctrl(DWORD type) {
  return type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT;
}

int wmain(void) {
  wchar_t self[32768];
  DWORD len = GetModuleFileNameW(NULL, self, sizeof self / sizeof *self);
  if (len == 0 || len >= sizeof self / sizeof *self) {
    say(L"cannot tell where it is installed:", L"GetModuleFileNameW failed", GetLastError());
    return EXIT_LAUNCH_FAILED;
  }
  wchar_t *slash = wcsrchr(self, L'\\');
  if (!slash) return EXIT_LAUNCH_FAILED;
  *slash = 0; /* self = <install>\resources\cli */

  wchar_t exe[32768];
  _snwprintf(exe, sizeof exe / sizeof *exe, L"%ls\\..\\..\\Contactor.exe", self);
  exe[sizeof exe / sizeof *exe - 1] = 0;
  wchar_t fullExe[32768];
  DWORD fullLen = GetFullPathNameW(exe, sizeof fullExe / sizeof *fullExe, fullExe, NULL);
  if (fullLen == 0 || fullLen >= sizeof fullExe / sizeof *fullExe) wcscpy(fullExe, exe);

  const wchar_t *tail = command_line_tail(GetCommandLineW());
  size_t size = wcslen(fullExe) + wcslen(self) + wcslen(tail) + 64;
  wchar_t *line = HeapAlloc(GetProcessHeap(), 0, size * sizeof *line);
  if (!line) return EXIT_LAUNCH_FAILED;
  /* Paths never hold a quote character on Windows, so plain quotes delimit them. */
  _snwprintf(line, size, L"\"%ls\" \"%ls\\contactor.cjs\"%ls%ls", fullExe, self, *tail ? L" " : L"", tail);
  line[size - 1] = 0;

  SetEnvironmentVariableW(L"ELECTRON_RUN_AS_NODE", L"1");
  SetConsoleCtrlHandler(ignore_ctrl, TRUE);

  HANDLE job = CreateJobObjectW(NULL, NULL);
  if (job) {
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
    ZeroMemory(&limits, sizeof limits);
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_BREAKAWAY_OK;
    SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);
  }

  STARTUPINFOW si;
  ZeroMemory(&si, sizeof si);
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
  si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  PROCESS_INFORMATION pi;
  ZeroMemory(&pi, sizeof pi);
  if (!CreateProcessW(fullExe, line, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si, &pi)) {
    DWORD error = GetLastError();
    say(L"cannot start", fullExe, error);
    return EXIT_LAUNCH_FAILED;
  }
  if (job) AssignProcessToJobObject(job, pi.hProcess);
  ResumeThread(pi.hThread);
  CloseHandle(pi.hThread);
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = EXIT_LAUNCH_FAILED;
  GetExitCodeProcess(pi.hProcess, &code);
  CloseHandle(pi.hProcess);
  return (int)code;
}
