/**
 * What of the inherited environment an agent may not see (SECURITY.md#threat-model), applied on top of the
 * allow-list in config.ts `inheritedAgentEnv` (a separate step, so either can change alone):
 *
 * - proxy variables keep their host but lose `user:password@`, unless the agent's config says
 *   `pass_proxy_credentials: true`: an agent that only needs the proxy to reach the network does not
 *   need the user's proxy password;
 * - of the `XDG_*` variables only the base directories (config, data, cache, state, runtime) pass:
 *   session ids, seats and desktop details identify the user's login to whoever reads them.
 */
const PROXY_VARIABLE = /^(https?_proxy|all_proxy|ftp_proxy)$/i;
const XDG_PASSED = new Set(['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR']);

export interface FilteredEnv {
  env: Record<string, string>;
  /** Names of proxy variables whose credentials were removed (for a warning at load). */
  strippedProxyCredentials: string[];
}

export function filterAgentEnv(
  inherited: Record<string, string>,
  options: { passProxyCredentials: boolean },
): FilteredEnv {
  const env: Record<string, string> = {};
  const stripped: string[] = [];
  for (const [name, value] of Object.entries(inherited)) {
    if (/^XDG_/i.test(name) && !XDG_PASSED.has(name)) continue;
    if (PROXY_VARIABLE.test(name) && !options.passProxyCredentials) {
      const clean = withoutCredentials(value);
      if (clean !== value) stripped.push(name);
      env[name] = clean;
      continue;
    }
    env[name] = value;
  }
  return { env, strippedProxyCredentials: stripped };
}

/** `scheme://user:pass@host:port/...` (or without a scheme) with the `user:pass@` part removed. */
export function withoutCredentials(proxy: string): string {
  return proxy.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/\s]*@/i, (_m, scheme: string | undefined) => scheme ?? '');
}
