/*
 * contactor.exe: the Windows CLI launcher, installed in <install>\resources\cli (on the user's PATH).
 *
 * It runs <install>\Contactor.exe in Node mode (ELECTRON_RUN_AS_NODE=1) on the bundled CLI
 * <install>\resources\cli\contactor.cjs, and hands over its own command line tail exactly as it received it:
 * no batch file re-parses it (a `.cmd` wrapper's `%*` cuts a multi-line argument at the first line break,
 * expands %VAR% and splits on & | < > ^). Electron splits the tail with CommandLineToArgvW
 * (shell/app/electron_main_win.cc, wWinMain), not with the MSVCRT startup code: the two agree on the quoting
 * callers produce (libuv, PowerShell 7.3+), and differ for `""` inside quotes, which CommandLineToArgvW reads as
 * one literal quote that also ends the quoted part (`"a""b c"` gives `a"b` and `c`).
 * stdin/stdout/stderr are inherited, the child's exit code is ours.
 *
 * Console control events: Contactor.exe is a GUI program and, given valid std handles, never attaches to the
 * console, so Ctrl-C never reaches it. This process catches Ctrl-C and Ctrl-Break (and the console closing)
 * and writes one byte for each into a named pipe whose name it passes in CONTACTOR_CONSOLE_EVENTS; the CLI
 * reads it (main/cli/console-events.ts) and raises SIGINT (SIGHUP for a close) as a POSIX terminal would.
 *
 * A job object ends the CLI if this process is killed or its console closes. The job lets the CLI's own
 * children leave it silently: the bridge that `contactor up` starts detached must outlive this process, and
 * libuv's detached spawn does not ask to break away (see create_cli_job).
 *
 * Built with MinGW-w64 (scripts/build.mjs): x86_64-w64-mingw32-gcc -municode -O2 -s -o contactor.exe contactor.c
 */
#define WIN32_LEAN_AND_MEAN
#define _CRT_RAND_S
#ifndef UNICODE
#define UNICODE
#endif
#ifndef _UNICODE
#define _UNICODE
#endif
#include <windows.h>
#include <sddl.h>
#include <stdlib.h>
#include <wchar.h>

#define EXIT_LAUNCH_FAILED 2

/*
 * One line on stderr. A console gets UTF-16 through WriteConsoleW: UTF-8 bytes through WriteFile would be read
 * in the console's code page (an OEM one such as 437 or 850 by default) and garble a non-ASCII install path.
 * Anything else (a pipe, a file) gets UTF-8, what the CLI writes there too.
 */
static void say(const wchar_t *what, const wchar_t *detail, DWORD error) {
  wchar_t text[4096];
  _snwprintf(text, sizeof text / sizeof *text - 1, L"contactor: %ls %ls (Windows error %lu)\r\n", what, detail,
             (unsigned long)error);
  text[sizeof text / sizeof *text - 1] = 0;
  HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
  if (!err || err == INVALID_HANDLE_VALUE) return;
  DWORD mode, written;
  if (GetConsoleMode(err, &mode)) {
    WriteConsoleW(err, text, (DWORD)wcslen(text), &written, NULL);
    return;
  }
  char utf8[16384];
  int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, utf8, sizeof utf8, NULL, NULL);
  if (n > 1) WriteFile(err, utf8, (DWORD)(n - 1), &written, NULL);
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

/*
 * The console events channel. Ctrl-C, Ctrl-Break and the console closing reach this process only (the CLI is
 * not attached to the console): each is written as one byte, 'C', 'B' or 'H', into a named pipe the CLI
 * connects to. An event before the CLI connected waits in `pending` and goes out once it has.
 * The pipe takes one client, from this machine only, and its DACL lets in only the owner (the user who ran
 * this): another user cannot take the CLI's place, nor read the events.
 */
static HANDLE events_pipe = INVALID_HANDLE_VALUE;
static CRITICAL_SECTION events_lock;
static BOOL events_connected;
static char pending[64];
static DWORD pending_len;
static HANDLE child_process;

static void send_event(char event) {
  EnterCriticalSection(&events_lock);
  if (events_connected) {
    DWORD written;
    WriteFile(events_pipe, &event, 1, &written, NULL);
  } else if (pending_len < sizeof pending) {
    pending[pending_len++] = event;
  }
  LeaveCriticalSection(&events_lock);
}

static DWORD WINAPI accept_events_client(LPVOID unused) {
  (void)unused;
  BOOL ok = ConnectNamedPipe(events_pipe, NULL) || GetLastError() == ERROR_PIPE_CONNECTED;
  if (!ok) return 0;
  EnterCriticalSection(&events_lock);
  events_connected = TRUE;
  DWORD written;
  if (pending_len) WriteFile(events_pipe, pending, pending_len, &written, NULL);
  pending_len = 0;
  LeaveCriticalSection(&events_lock);
  return 0;
}

/* Creates the pipe and names it in CONTACTOR_CONSOLE_EVENTS; without it the variable is removed. */
static void open_events_channel(void) {
  SetEnvironmentVariableW(L"CONTACTOR_CONSOLE_EVENTS", NULL);
  unsigned int r[4];
  for (int i = 0; i < 4; ++i)
    if (rand_s(&r[i]) != 0) return;
  wchar_t name[96];
  _snwprintf(name, sizeof name / sizeof *name, L"\\\\.\\pipe\\contactor-console-%lu-%08x%08x%08x%08x",
             (unsigned long)GetCurrentProcessId(), r[0], r[1], r[2], r[3]);
  name[sizeof name / sizeof *name - 1] = 0;
  SECURITY_ATTRIBUTES sa;
  ZeroMemory(&sa, sizeof sa);
  sa.nLength = sizeof sa;
  sa.bInheritHandle = FALSE;
  /* Protected DACL, generic all to OWNER RIGHTS (the pipe's owner: this user, or Administrators if elevated). */
  if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(L"D:P(A;;GA;;;OW)", SDDL_REVISION_1,
                                                            &sa.lpSecurityDescriptor, NULL))
    return;
  events_pipe = CreateNamedPipeW(name, PIPE_ACCESS_OUTBOUND | FILE_FLAG_FIRST_PIPE_INSTANCE,
                                 PIPE_TYPE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, 256, 0, 0, &sa);
  LocalFree(sa.lpSecurityDescriptor);
  if (events_pipe == INVALID_HANDLE_VALUE) return;
  InitializeCriticalSection(&events_lock);
  HANDLE thread = CreateThread(NULL, 0, accept_events_client, NULL, 0, NULL);
  if (!thread) {
    CloseHandle(events_pipe);
    events_pipe = INVALID_HANDLE_VALUE;
    return;
  }
  CloseHandle(thread);
  SetEnvironmentVariableW(L"CONTACTOR_CONSOLE_EVENTS", name);
}

/*
 * Ctrl-C and Ctrl-Break go to the CLI, which decides; we keep waiting for it. On a close (window, log-off,
 * shut-down) Windows ends this process once the handler returns, or after a few seconds: the handler waits for
 * the CLI meanwhile, so it can cancel what it started; if it has not ended by then, the job ends it with us.
 */
static BOOL WINAPI forward_console_event(DWORD type) {
  if (type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT) {
    if (events_pipe != INVALID_HANDLE_VALUE) send_event(type == CTRL_C_EVENT ? 'C' : 'B');
    return TRUE;
  }
  if (events_pipe != INVALID_HANDLE_VALUE) send_event('H');
  if (child_process) WaitForSingleObject(child_process, INFINITE);
  return FALSE;
}

/*
 * The job that ends the CLI with this process (KILL_ON_JOB_CLOSE: its one handle is ours, closed when we end,
 * however we end). SILENT_BREAKAWAY_OK: only the CLI, which we assign, is in it; its children are created
 * outside it. Without it, the bridge `contactor up` starts with spawn({detached: true}) would die with us: libuv
 * spawns detached children with DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP and, on purpose, without
 * CREATE_BREAKAWAY_FROM_JOB (src/win/process.c, uv_spawn), so they stay in every job of their parent.
 * The CLI's other children still end with it: libuv puts each non-detached child in its own kill-on-close job
 * (src/win/process.c, uv__init_global_job_handle and uv_spawn), whose one handle the CLI holds.
 */
static HANDLE create_cli_job(void) {
  HANDLE job = CreateJobObjectW(NULL, NULL);
  if (!job) return NULL;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
  ZeroMemory(&limits, sizeof limits);
  limits.BasicLimitInformation.LimitFlags =
      JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_BREAKAWAY_OK | JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK;
  SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);
  return job;
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
  open_events_channel();
  SetConsoleCtrlHandler(forward_console_event, TRUE);
  HANDLE job = create_cli_job();

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
  child_process = pi.hProcess;
  ResumeThread(pi.hThread);
  CloseHandle(pi.hThread);
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = EXIT_LAUNCH_FAILED;
  GetExitCodeProcess(pi.hProcess, &code);
  CloseHandle(pi.hProcess);
  return (int)code;
}
