/*
 * Wine lane only — never shipped. Wine 8's taskkill.exe (programs/taskkill/taskkill.c) knows /F, /IM and /PID
 * but not /T, so the product's `taskkill /PID <pid> /T /F` (main/backends/process-tree.ts taskkillCommand)
 * fails there. This stand-in implements what Windows documents for the flags the product uses
 * (learn.microsoft.com, "taskkill": /PID selects a process, /T also ends every process it started, /F forces)
 * with the same calls Windows' tool is built on (CreateToolhelp32Snapshot parent links, TerminateProcess).
 * Messages and exit codes follow Windows: 0 when all were ended, 128 when a PID does not exist, 1 otherwise.
 * Anything else (/IM, filters) is refused with exit 1, so a test that needs it fails loudly.
 */
#include <windows.h>
#include <tlhelp32.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kill_tree(HANDLE snap, DWORD pid, DWORD parent, int tree) {
  int failed = 0;
  if (tree) {
    PROCESSENTRY32 entry = {.dwSize = sizeof entry};
    DWORD children[256];
    int count = 0;
    if (Process32First(snap, &entry)) {
      do {
        if (entry.th32ParentProcessID == pid && entry.th32ProcessID != pid && count < 256)
          children[count++] = entry.th32ProcessID;
      } while (Process32Next(snap, &entry));
    }
    for (int i = 0; i < count; i++) failed |= kill_tree(snap, children[i], pid, tree);
  }
  HANDLE process = OpenProcess(PROCESS_TERMINATE, FALSE, pid);
  if (!process || !TerminateProcess(process, 1)) {
    if (process) CloseHandle(process);
    if (parent) return failed; /* a child that exited meanwhile is not an error */
    printf("ERROR: The process with PID %lu could not be terminated.\n", (unsigned long)pid);
    return 1;
  }
  CloseHandle(process);
  if (parent)
    printf("SUCCESS: The process with PID %lu (child process of PID %lu) has been terminated.\n",
           (unsigned long)pid, (unsigned long)parent);
  else
    printf("SUCCESS: The process with PID %lu has been terminated.\n", (unsigned long)pid);
  return failed;
}

static int exists(HANDLE snap, DWORD pid) {
  PROCESSENTRY32 entry = {.dwSize = sizeof entry};
  if (Process32First(snap, &entry)) {
    do {
      if (entry.th32ProcessID == pid) return 1;
    } while (Process32Next(snap, &entry));
  }
  return 0;
}

int main(int argc, char **argv) {
  DWORD pids[64];
  int count = 0, tree = 0, status = 0;
  for (int i = 1; i < argc; i++) {
    if (!_stricmp(argv[i], "/T")) tree = 1;
    else if (!_stricmp(argv[i], "/F")) continue;
    else if (!_stricmp(argv[i], "/PID") && i + 1 < argc && count < 64) pids[count++] = strtoul(argv[++i], NULL, 10);
    else {
      printf("ERROR: Invalid argument/option - '%s' (the Wine lane's stand-in knows /PID, /T and /F).\n", argv[i]);
      return 1;
    }
  }
  if (count == 0) {
    printf("ERROR: Invalid syntax. /PID is required.\n");
    return 1;
  }
  HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snap == INVALID_HANDLE_VALUE) return 1;
  for (int i = 0; i < count; i++) {
    if (!exists(snap, pids[i])) {
      printf("ERROR: The process \"%lu\" not found.\n", (unsigned long)pids[i]);
      status = status ? status : 128;
      continue;
    }
    if (kill_tree(snap, pids[i], 0, tree)) status = 1;
  }
  CloseHandle(snap);
  return status;
}
