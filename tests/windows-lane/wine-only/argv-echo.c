/*
 * Wine lane only — never shipped. A stand-in Contactor.exe that splits its command line as Electron does:
 * a GUI-subsystem program whose wWinMain calls CommandLineToArgvW(GetCommandLineW()) (electron/electron
 * shell/app/electron_main_win.cc, wWinMain), not the MSVCRT/UCRT startup parser node.exe uses. It writes every
 * argument after the script (argv[2..]) to its stdout as UTF-8, each followed by a NUL, and exits 0.
 * Wine's CommandLineToArgvW (dlls/shell32/shell32_main.c) follows Windows' rules, `""` inside quotes included.
 */
#include <windows.h>
#include <shellapi.h>

int WINAPI wWinMain(HINSTANCE instance, HINSTANCE previous, PWSTR unused, int show) {
  (void)instance;
  (void)previous;
  (void)unused;
  (void)show;
  int argc = 0;
  wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
  if (!argv) return 1;
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  for (int i = 2; i < argc; ++i) {
    char utf8[32768];
    int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, utf8, sizeof utf8, NULL, NULL);
    DWORD written;
    if (n > 0) WriteFile(out, utf8, (DWORD)n, &written, NULL); /* n counts the NUL: the separator */
  }
  LocalFree(argv);
  return 0;
}
