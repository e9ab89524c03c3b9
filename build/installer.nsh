; Included by electron-builder's NSIS script (electron-builder.yml nsis.include), in the header, before
; templates/nsis/installer.nsi includes allowOnlyOneInstallerInstance.nsh. Checked by compiling it with Debian's
; makensis (tests/packaging/installer-nsh.test.ts).

; The toast activator CLSID the app registers (main/shell/layout.ts TOAST_ACTIVATOR_CLSID): Electron writes
; HKCU\Software\Classes\CLSID\{…}\LocalServer32 = Contactor.exe (windows_toast_activator.cc EnsureCLSIDRegistry).
!define CONTACTOR_TOAST_CLSID "{6B1A4C3E-2F0D-4C8B-9E57-3D9A0C1F7E42}"
; The folder with contactor.cmd (cmd, PowerShell) and the WSL wrapper: on the user's PATH while installed.
!define CONTACTOR_CLI_DIR "$INSTDIR\resources\cli"
; NSIS strings hold at most NSIS_MAX_STRLEN - 1 characters (1024 in Debian's makensis, 8192 in the build
; electron-builder downloads): a longer PATH could not be written back whole, so such a PATH is left alone.
!define /math CONTACTOR_MAX_PATH ${NSIS_MAX_STRLEN} - 2

; ---- Updates and uninstall: stop the bridge cleanly before files are replaced -----------------------------
; electron-builder's own _CHECK_APP_RUNNING (include/allowOnlyOneInstallerInstance.nsh) stops every process
; under $INSTDIR with Stop-Process / taskkill: the bridge never gets to stop its agents or record its running
; tasks. So, while a process of this install runs:
; 1. every bridge of it — the tray app's, or a headless `contactor serve` (Contactor.exe in Node mode), which
;    never takes the single-instance lock, so `--quit` cannot reach it — is asked to stop through its discovery
;    file and POST /shutdown: `contactor down`, run by this install's own CLI (it finds the config and data dir
;    as the user's bridge did, and waits a bounded time for the pid to end);
; 2. the tray app is asked to quit (`Contactor.exe --quit` reaches it through the single-instance lock;
;    main/shell/app.ts), and is waited for;
; 3. only then electron-builder's check runs for whatever is left.
; Defining customCheckAppRunning makes that file skip these two lines, which its _CHECK_APP_RUNNING needs.
!include "getProcessInfo.nsh"
Var pid

!macro customCheckAppRunning
  !insertmacro IS_POWERSHELL_AVAILABLE
  !insertmacro FIND_PROCESS "${APP_EXECUTABLE_FILENAME}" $R0
  ${if} $R0 == 0
    DetailPrint "Asking the ${PRODUCT_NAME} bridge to stop its agents"
    ${if} ${FileExists} "$INSTDIR\resources\cli\contactor.exe"
      nsExec::Exec '"$INSTDIR\resources\cli\contactor.exe" down'
      Pop $R1
    ${elseIf} ${FileExists} "$INSTDIR\resources\cli\contactor.cjs"
      ; An install from before the launcher: the same CLI, run as the launcher would run it.
      System::Call 'Kernel32::SetEnvironmentVariable(t "ELECTRON_RUN_AS_NODE", t "1")'
      nsExec::Exec '"$INSTDIR\${APP_EXECUTABLE_FILENAME}" "$INSTDIR\resources\cli\contactor.cjs" down'
      Pop $R1
      System::Call 'Kernel32::SetEnvironmentVariable(t "ELECTRON_RUN_AS_NODE", p 0)'
    ${endIf}
    !insertmacro FIND_PROCESS "${APP_EXECUTABLE_FILENAME}" $R0
  ${endIf}
  ${if} $R0 == 0
    DetailPrint "Asking ${PRODUCT_NAME} to quit"
    ExecWait '"$INSTDIR\${APP_EXECUTABLE_FILENAME}" --quit'
    StrCpy $R1 0
    ${DoWhile} $R0 == 0
      ${if} $R1 >= 60
        ${ExitDo}
      ${endIf}
      Sleep 500
      IntOp $R1 $R1 + 1
      !insertmacro FIND_PROCESS "${APP_EXECUTABLE_FILENAME}" $R0
    ${Loop}
  ${endIf}
  !insertmacro _CHECK_APP_RUNNING
!macroend

; ---- The user's PATH ------------------------------------------------------------------------------------
; HKCU\Environment\Path without any entry equal to the given one (StrCmp: case-insensitive, as Windows paths
; are; with or without a trailing backslash). Every other byte stays: empty entries (`a;;b`) and a trailing `;` are
; the user's, so an install followed by an uninstall gives back the value exactly as it was.
; Stack in: list, entry (entry on top); out: the list without it.
!macro CONTACTOR_PATH_WITHOUT_FUNCTION PREFIX
  Function ${PREFIX}contactorPathWithout
    Exch $R1
    Exch
    Exch $R0
    Push $R2
    Push $R3
    Push $R4
    Push $R5
    Push $R6
    Push $R7
    Push $R8
    StrCpy $R2 ""
    StrCpy $R7 0
    StrCpy $R3 $R0
    StrCmp $R3 "" done
    next_entry:
      StrCpy $R4 0
      scan:
        StrCpy $R5 $R3 1 $R4
        StrCmp $R5 "" cut
        StrCmp $R5 ";" cut
        IntOp $R4 $R4 + 1
        Goto scan
      cut:
        ; $R6 the entry, $R8 what ended it (";", or "" at the very end), $R3 the rest.
        StrCpy $R6 $R3 $R4
        StrCpy $R8 $R5
        IntOp $R4 $R4 + 1
        StrCpy $R3 $R3 "" $R4
        StrCmp $R6 "" keep
        StrCmp $R6 $R1 skip
        StrCmp $R6 "$R1\" skip
      keep:
        IntCmp $R7 0 first
        StrCpy $R2 "$R2;$R6"
        Goto kept
      first:
        StrCpy $R2 $R6
      kept:
        IntOp $R7 $R7 + 1
      skip:
        ; A ";" always has an entry after it, even an empty one at the end.
        StrCmp $R8 ";" next_entry done
    done:
    StrCpy $R0 $R2
    Pop $R8
    Pop $R7
    Pop $R6
    Pop $R5
    Pop $R4
    Pop $R3
    Pop $R2
    Exch
    Pop $R1
    Exch $R0
  FunctionEnd
!macroend

; Tell running programs (Explorer, new terminals) that the environment changed: WM_SETTINGCHANGE (0x1A) to
; HWND_BROADCAST (0xFFFF) with "Environment" (Microsoft Learn, "WM_SETTINGCHANGE").
!macro CONTACTOR_BROADCAST_ENVIRONMENT
  SendMessage 0xFFFF 0x1A 0 "STR:Environment" /TIMEOUT=5000
!macroend

; Reads HKCU\Environment\Path into $contactorUserPath and says how the read went in $contactorUserPathState:
; "ok", "absent" (no such value: the installer may create it) or "unreadable". ReadRegStr does not truncate a
; value longer than NSIS_MAX_STRLEN: it yields "" and sets the error flag, exactly as for a missing value (NSIS
; Source/exehead/exec.c, EW_READREGSTR: RegQueryValueEx fails with ERROR_MORE_DATA, p[0]=0, exec_error++). Nor does
; it say which type it read (REG_SZ and REG_EXPAND_SZ alike), while every write picks one: WriteRegStr writes
; REG_SZ, WriteRegExpandStr REG_EXPAND_SZ (exec.c, EW_WRITEREG). So the value is also asked of Windows itself,
; RegGetValueW with no buffer (advapi32; RRF_RT_ANY | RRF_NOEXPAND = 0x1000FFFF, so a REG_EXPAND_SZ is reported
; as such and not expanded): it answers whether the value exists at all, however long, and its type, kept in
; $contactorUserPathType (1 REG_SZ, 2 REG_EXPAND_SZ). Writing after a misread "absent" would replace the user's
; whole PATH with our folder; writing with the other type would turn %USERPROFILE%\bin into a literal folder name
; (REG_SZ) or start expanding what the user meant literally (REG_EXPAND_SZ).
; The header is included before electron-builder's templates pull LogicLib in: include it here (it guards itself).
!include LogicLib.nsh
Var contactorUserPath
Var contactorUserPathState
Var contactorUserPathType
!macro CONTACTOR_READ_USER_PATH_FUNCTION PREFIX
  Function ${PREFIX}contactorReadUserPath
    Push $0
    Push $1
    Push $2
    ; HKEY_CURRENT_USER is (HKEY)(LONG)0x80000001: written as the negative number so that a 64-bit build passes it
    ; sign-extended, as winreg.h defines it. ERROR_SUCCESS 0, ERROR_FILE_NOT_FOUND 2.
    StrCpy $0 ""
    System::Call 'advapi32::RegGetValueW(p -2147483647, w "Environment", w "Path", i 0x1000FFFF, *i .r0, p 0, *i .r1) i .r2'
    StrCpy $contactorUserPathType $0
    StrCpy $contactorUserPath ""
    ${if} $2 == 2
      StrCpy $contactorUserPathState "absent"
    ${elseIf} $2 != 0
    ${orIf} $0 < 1
    ${orIf} $0 > 2
      ; Unreadable, or not a string (REG_MULTI_SZ, REG_BINARY…): never rewritten.
      StrCpy $contactorUserPathState "unreadable"
    ${else}
      ClearErrors
      ReadRegStr $contactorUserPath HKCU "Environment" "Path"
      ${if} ${Errors}
        ; There, a string, but longer than NSIS_MAX_STRLEN: ReadRegStr gave "".
        StrCpy $contactorUserPath ""
        StrCpy $contactorUserPathState "unreadable"
      ${else}
        StrCpy $contactorUserPathState "ok"
      ${endIf}
    ${endIf}
    Pop $2
    Pop $1
    Pop $0
  FunctionEnd
!macroend

; Writes the user's PATH with the type it was read with ($contactorUserPathType); a value this installer creates is
; REG_EXPAND_SZ, as Windows creates it, so entries like %USERPROFILE%\bin keep working.
!macro CONTACTOR_WRITE_USER_PATH VALUE
  ${if} $contactorUserPathType == 1
    WriteRegStr HKCU "Environment" "Path" "${VALUE}"
  ${else}
    WriteRegExpandStr HKCU "Environment" "Path" "${VALUE}"
  ${endIf}
!macroend

; Whether the PATH value itself is ours to delete: set when the installer created it (there was no Path at all),
; in a key of our own, which an update leaves alone (the old uninstaller runs with --updated) and a real uninstall
; removes. Without it an uninstall that empties PATH keeps an empty value: one that existed before stays.
!define CONTACTOR_STATE_KEY "Software\${APP_ID}"
!define CONTACTOR_CREATED_PATH "CreatedUserPath"

!ifndef BUILD_UNINSTALLER
  !insertmacro CONTACTOR_PATH_WITHOUT_FUNCTION ""
  !insertmacro CONTACTOR_READ_USER_PATH_FUNCTION ""

  !macro customInstall
    Push $0
    Push $1
    Push $2
    Call contactorReadUserPath
    StrLen $0 $contactorUserPath
    StrLen $1 "${CONTACTOR_CLI_DIR}"
    IntOp $0 $0 + $1
    ${if} $contactorUserPathState == "unreadable"
    ${orIf} $0 >= ${CONTACTOR_MAX_PATH}
      DetailPrint "Your PATH is too long to change safely; add ${CONTACTOR_CLI_DIR} to it by hand."
    ${else}
      ; Already there (an update, a reinstall, or typed by the user): the value stays exactly as it is.
      Push $contactorUserPath
      Push "${CONTACTOR_CLI_DIR}"
      Call contactorPathWithout
      Pop $0
      StrLen $1 $0
      StrLen $2 $contactorUserPath
      ${if} $1 == $2
        ; Appended after every byte of the user's value (a trailing `;` included), so that the uninstall, which
        ; removes our entry and its separator, gives that value back unchanged.
        ${if} $contactorUserPath == ""
          StrCpy $0 "${CONTACTOR_CLI_DIR}"
        ${else}
          StrCpy $0 "$contactorUserPath;${CONTACTOR_CLI_DIR}"
        ${endIf}
        ${if} $contactorUserPathState == "absent"
          WriteRegDWORD HKCU "${CONTACTOR_STATE_KEY}" "${CONTACTOR_CREATED_PATH}" 1
        ${endIf}
        !insertmacro CONTACTOR_WRITE_USER_PATH $0
        !insertmacro CONTACTOR_BROADCAST_ENVIRONMENT
      ${endIf}
    ${endIf}
    Pop $2
    Pop $1
    Pop $0
  !macroend
!else
  !insertmacro CONTACTOR_PATH_WITHOUT_FUNCTION "un."
  !insertmacro CONTACTOR_READ_USER_PATH_FUNCTION "un."

  ; "Start at login" writes HKCU\Software\Microsoft\Windows\CurrentVersion\Run\<AUMID> through Electron's
  ; setLoginItemSettings; the value name is the AppUserModelId, which equals the appId. The uninstaller does not
  ; know about it, so remove it here (with its Task Manager "Startup apps" state), or Windows would try to start a
  ; deleted exe at every login. The toast activator's CLSID key and the PATH entry go too. An update also runs
  ; the old uninstaller (with --updated): the user's choices and the PATH entry must survive that.
  !macro customUnInstall
    ${ifNot} ${isUpdated}
      DeleteRegValue HKCU "Software\Microsoft\Windows\CurrentVersion\Run" "${APP_ID}"
      DeleteRegValue HKCU "Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run" "${APP_ID}"
      DeleteRegKey HKCU "Software\Classes\CLSID\${CONTACTOR_TOAST_CLSID}"
      Push $0
      Push $1
      Push $2
      Call un.contactorReadUserPath
      StrCpy $0 $contactorUserPath
      StrLen $1 $0
      ${if} $contactorUserPathState == "ok"
      ${andIf} $1 < ${CONTACTOR_MAX_PATH}
        Push $0
        Push "${CONTACTOR_CLI_DIR}"
        Call un.contactorPathWithout
        Pop $1
        ${if} $1 != $0
          ReadRegDWORD $2 HKCU "${CONTACTOR_STATE_KEY}" "${CONTACTOR_CREATED_PATH}"
          ${if} $1 == ""
          ${andIf} $2 == 1
            ; Only our folder, in a value this installer created: it goes, as there was none before.
            DeleteRegValue HKCU "Environment" "Path"
          ${else}
            !insertmacro CONTACTOR_WRITE_USER_PATH $1
          ${endIf}
          !insertmacro CONTACTOR_BROADCAST_ENVIRONMENT
        ${endIf}
      ${endIf}
      DeleteRegValue HKCU "${CONTACTOR_STATE_KEY}" "${CONTACTOR_CREATED_PATH}"
      DeleteRegKey /ifempty HKCU "${CONTACTOR_STATE_KEY}"
      Pop $2
      Pop $1
      Pop $0
    ${endIf}
  !macroend
!endif
