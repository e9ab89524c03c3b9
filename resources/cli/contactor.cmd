@echo off
rem contactor for cmd and PowerShell: runs the bundled CLI with the app's own exe in Node mode,
rem as VS Code's code.cmd does. Lives in INSTALL\resources\cli\ next to contactor.cjs; keeps CRLF endings.
setlocal
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\Contactor.exe" "%~dp0contactor.cjs" %*
rem The exit code is expanded before endlocal runs, so it survives it.
endlocal & exit /b %ERRORLEVEL%
