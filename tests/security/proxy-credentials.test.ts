/**
 * Proxy variables reach agents without `user:password@` (config/agent-env-filter.ts). The password is
 * found as a URL parser finds it (WHATWG URL: the userinfo ends at the authority's last `@`), so none of
 * it survives: `http://bob:p@ssw0rd@proxy` once reached the agent as `http://ssw0rd@proxy`, and values with
 * a leading space or a `/` in the password passed unchanged.
 */
import { describe, expect, it } from 'vitest';
import { filterAgentEnv, withoutCredentials } from '../../main/config/agent-env-filter.js';

/** [value a user set, what the agent gets]: every password below holds "s3cr". */
const SAMPLES: [string, string][] = [
  ['http://bob:p@s3cr@proxy', 'http://proxy'],
  ['http://bob:p@s3cr@proxy.corp:8080/', 'http://proxy.corp:8080/'],
  [' http://bob:s3cr@proxy:3128', 'http://proxy:3128'],
  ['http://bob:s3cr@proxy:3128 ', 'http://proxy:3128'],
  ['http://bob:pa/s3cr@proxy:8080', 'http://proxy:8080'],
  ['http://bob:p#s3cr@proxy:8080', 'http://proxy:8080'],
  ['http://bob:p?s3cr@proxy:8080', 'http://proxy:8080'],
  ['socks5://bob:s3cr@proxy:1080', 'socks5://proxy:1080'],
  ['bob:p@s3cr@proxy:3128', 'proxy:3128'],
  ['http://user:pa%40s3cr@proxy.corp:8080', 'http://proxy.corp:8080'],
  ['http://s3cr@proxy:3128', 'http://proxy:3128'],
];

describe('proxy credentials', () => {
  it.each(SAMPLES)('%j reaches the agent as %j', (value, expected) => {
    expect(withoutCredentials(value)).toBe(expected);
    const { env, strippedProxyCredentials } = filterAgentEnv({ HTTPS_PROXY: value }, { passProxyCredentials: false });
    expect(env.HTTPS_PROXY).not.toContain('s3cr');
    expect(strippedProxyCredentials).toEqual(['HTTPS_PROXY']);
  });

  it('keeps a proxy without credentials as it is, an @ in its path or query included', () => {
    for (const value of ['http://proxy:3128/', 'http://proxy:8080/?a=b@c', 'proxy:3128', 'http://[::1]:3128']) {
      expect(withoutCredentials(value)).toBe(value);
    }
  });
});
