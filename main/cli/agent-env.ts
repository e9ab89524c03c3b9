/**
 * The environment an agent the bridge starts gets, so a probe from the CLI sees what the bridge will see:
 * an agent that works only thanks to a variable of the user's shell fails the probe as it would fail a task.
 * Kept in step with wiring.ts `agentEnv` (tests/cli/agent-env.test.ts compares the two).
 */

const INHERITED_ENV =
  /^(PATH|PATHEXT|HOME|USER|USERNAME|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|TMPDIR|TEMP|TMP|SYSTEMROOT|SYSTEMDRIVE|COMSPEC|WINDIR|APPDATA|LOCALAPPDATA|USERPROFILE|HOMEDRIVE|HOMEPATH|PROGRAMFILES|PROGRAMFILES\(X86\)|PROGRAMDATA|COMMONPROGRAMFILES|XDG_[A-Z_]+|WSL_DISTRO_NAME|WSL_INTEROP|NUMBER_OF_PROCESSORS|PROCESSOR_ARCHITECTURE|OS|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy|NO_COLOR)$/i;

export function inheritedAgentEnv(
  env: NodeJS.ProcessEnv,
  runsInElectron = process.versions.electron !== undefined,
): Record<string, string> {
  const inherited = Object.entries(env).filter(
    (e): e is [string, string] => e[1] !== undefined && INHERITED_ENV.test(e[0]),
  );
  // Under the app's exe in Node mode, `${CONTACTOR_NODE}` commands (the demo agent) are that exe: keep Node mode.
  return { ...Object.fromEntries(inherited), ...(runsInElectron ? { ELECTRON_RUN_AS_NODE: '1' } : {}) };
}
