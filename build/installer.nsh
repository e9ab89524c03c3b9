; Included by electron-builder's NSIS script (electron-builder.yml nsis.include).
; "Start at login" writes HKCU\Software\Microsoft\Windows\CurrentVersion\Run\<AUMID> through Electron's
; setLoginItemSettings; the value name is the AppUserModelId, which equals the appId. The uninstaller does not
; know about it, so remove it here (with its Task Manager "Startup apps" state), or Windows would try to start a
; deleted exe at every login. An update also runs the old uninstaller: the user's choice must survive that.
!macro customUnInstall
  ${ifNot} ${isUpdated}
    DeleteRegValue HKCU "Software\Microsoft\Windows\CurrentVersion\Run" "${APP_ID}"
    DeleteRegValue HKCU "Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run" "${APP_ID}"
  ${endIf}
!macroend
