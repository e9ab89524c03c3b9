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

/**
 * `scheme://user:pass@host:port/...` (or without a scheme) with the `user:pass@` part removed, read as
 * a URL is (WHATWG URL): surrounding spaces do not count and the userinfo ends at the authority's *last*
 * `@`, so `http://bob:p@ss@proxy` keeps no `ss@`. A value no URL parser takes (`/` typed into a password,
 * no scheme) loses everything up to its last `@`: whatever else a client makes of it, no password passes.
 */
export function withoutCredentials(proxy: string): string {
  const value = proxy.trim();
  if (!value.includes('@')) return proxy;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  const url = parsedUrl(value);
  if (url && url.host !== '' && scheme !== '') {
    if (url.username === '' && url.password === '') return value;
    // The authority ends at the first `/`, `?` or `#` (or `\` for http/https) after the scheme.
    const rest = value.slice(scheme.length);
    const end = rest.search(/[/?#\\]/);
    const authority = end < 0 ? rest : rest.slice(0, end);
    return scheme + rest.slice(authority.lastIndexOf('@') + 1);
  }
  return scheme + value.slice(scheme.length).slice(value.slice(scheme.length).lastIndexOf('@') + 1);
}

function parsedUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
