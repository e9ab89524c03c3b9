/**
 * Credential-shaped strings, removed from every text the bridge writes itself: its log, the audit log,
 * error messages, and a task's status texts (failure reasons built from an agent's stderr, warnings).
 * The bridge's own tokens are removed from everything, agents' replies included (runtime/scrubber.ts:
 * the one place they are taken out of what a task holds).
 * Redact a whole text before cutting a preview from it: a cut can split a secret past recognition.
 */
export interface CredentialPattern {
  /** What it finds, as SECURITY.md lists it. */
  name: string;
  /** Global. A first capture group is a prefix kept in front of the marker (`password=[REDACTED]`). */
  pattern: RegExp;
  /** One text it must redact; the test runs every sample, so no pattern goes untested. */
  sample: string;
  /** The parts of `sample` that must be gone afterwards. */
  secrets: readonly string[];
}

export const CREDENTIAL_PATTERNS: readonly CredentialPattern[] = [
  {
    name: 'OpenAI / Anthropic / Langfuse-style keys (`sk-`, `pk-`, `rk-`)',
    pattern: /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g,
    sample: 'key pk-lf-0a1b2c3d4e5f6a7b8c9d end',
    secrets: ['0a1b2c3d4e5f6a7b8c9d'],
  },
  {
    name: 'Stripe secret and restricted keys (`sk_live_`, `sk_test_`, `rk_live_`)',
    pattern: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
    sample: 'stripe sk_live_51H8abcdefghijklmnopqrstuv end',
    secrets: ['51H8abcdefghijklmnopqrstuv'],
  },
  {
    name: 'GitHub fine-grained tokens (`github_pat_`)',
    pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
    sample: 't github_pat_11ABCDEFG0123456789_abcdefghij z',
    secrets: ['11ABCDEFG0123456789_abcdefghij'],
  },
  {
    name: 'GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`)',
    pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
    sample: 'token ghp_abcdefghijklmnopqrstuvwx0123',
    secrets: ['abcdefghijklmnopqrstuvwx0123'],
  },
  {
    name: 'GitLab personal access tokens (`glpat-`)',
    pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g,
    sample: 'gitlab glpat-xYz123AbC456dEf789gHi0 ok',
    secrets: ['xYz123AbC456dEf789gHi0'],
  },
  {
    name: 'npm tokens (`npm_`)',
    pattern: /\bnpm_[A-Za-z0-9]{36}\b/g,
    sample: '//registry.npmjs.org/:_authToken npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789',
    secrets: ['aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'],
  },
  {
    name: 'Hugging Face tokens (`hf_`)',
    pattern: /\bhf_[A-Za-z0-9]{30,}\b/g,
    sample: 'hub hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456 ok',
    secrets: ['AbCdEfGhIjKlMnOpQrStUvWxYz0123456'],
  },
  {
    name: 'Google API keys (`AIza`)',
    pattern: /\bAIza[0-9A-Za-z_-]{35}/g,
    sample: 'maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q ok',
    secrets: ['SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'],
  },
  {
    // `xoxe-1-` is the refresh token of a rotating app or config token; `xoxe.xoxp-1-` the rotating access token.
    name: 'Slack tokens (`xoxb-`, `xoxp-`, `xoxe-`, `xoxe.xoxp-`, ...)',
    pattern: /\b(?:xoxe\.)?xox[abposre]-[A-Za-z0-9-]{10,}/g,
    sample: 'slack xoxb-123456789012-abcdefghijkl',
    secrets: ['123456789012-abcdefghijkl'],
  },
  {
    name: 'Slack app-level tokens (`xapp-`)',
    pattern: /\bxapp-[0-9]-[A-Za-z0-9-]{10,}/g,
    sample: 'xapp-1-A0123456789-abcdef',
    secrets: ['A0123456789-abcdef'],
  },
  {
    name: 'Slack webhooks',
    pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g,
    sample: 'post to https://hooks.slack.com/services/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 now',
    secrets: ['T0AAAAAAA/B0BBBBBBB/xYzXyZxYzXyZxYzXyZxYzXyZ'],
  },
  {
    // `ASIA`: the temporary key id STS hands out (assumed roles, SSO, instance profiles).
    name: 'AWS access key ids (`AKIA`, `ASIA`)',
    pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
    sample: 'id AKIAIOSFODNN7EXAMPLE ok',
    secrets: ['IOSFODNN7EXAMPLE'],
  },
  {
    // 40 characters of base64 after the name they are always given.
    name: 'AWS secret access keys (after their name)',
    pattern: /((?:aws_secret_access_key|aws_secret_key|secretaccesskey)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}/gi,
    sample: '"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    secrets: ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  },
  {
    name: 'JWTs (an unsigned one too)',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
    sample: 'jwt eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0.',
    secrets: ['eyJzdWIiOiIxMjM0In0'],
  },
  {
    // A Digest value is a list of quoted parameters (`username="x", ..., response="<hash>"`): the whole
    // rest of the line goes, since the response hash is the part that proves the password.
    name: '`Authorization: Basic` / `Bearer` / `Token` values',
    pattern:
      /((?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:basic|bearer|token|digest)\s+)(?:(?<=digest\s+)[^\r\n]+|[^\s"',;]{4,})/gi,
    sample: 'Authorization: Basic Ym9iOmh1bnRlcjI=',
    secrets: ['Ym9iOmh1bnRlcjI='],
  },
  {
    name: 'Bearer values anywhere',
    pattern: /(bearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi,
    sample: 'curl -H "x: bearer abcdefghijklmnop0123"',
    secrets: ['abcdefghijklmnop0123'],
  },
  {
    // key=value, JSON, YAML, URLs' query strings (client_secret= too: no word boundary before the name).
    name: '`password=`, `secret=`, `client_secret=`, `api_key=` values',
    pattern: /((?:password|passwd|pwd|secret|api[_-]?key)["']?\s*[:=]\s*["']?)[^\s"'&,;}]{3,}/gi,
    sample: 'db password=hunter22; {"client_secret": "cs-9876"}; api-key: k3y',
    secrets: ['hunter22', 'cs-9876', 'k3y'],
  },
  {
    // GH_TOKEN=, NPM_TOKEN=, access_token=: no word boundary before the name. A value of 8 or more
    // credential characters with a digit, so prose ("without a token: set ...") stays readable.
    name: '`token=` values (also `"token": "..."`, `GH_TOKEN=`, `?access_token=`)',
    pattern: /(token["']?\s*[:=]\s*["']?)(?=[^\s"'&,;}]*\d)[A-Za-z0-9._~+/=-]{8,}/gi,
    sample: 'export GH_TOKEN=abc123def; {"token":"t0ps3cr3t"}; GET /x?access_token=qs123456&x=1',
    secrets: ['abc123def', 't0ps3cr3t', 'qs123456'],
  },
  {
    // The userinfo ends at the last `@` before the host (WHATWG URL), so `p@ss` and `p/ss` go whole.
    name: 'URL credentials (`scheme://user:password@host`)',
    pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s]*[^\s@](?=@[^\s@]*(?:\s|$))/gi,
    sample: 'proxy http://bob:p@ss/w0rd@proxy.example:8080 up',
    secrets: ['p@ss/w0rd'],
  },
  {
    // caller-tokens.ts: `ext.` + an agent name + `.` + a SHA-256 HMAC in base64url (43 characters). The name
    // stays readable (it says whose token it was); the MAC is the credential.
    name: "contactor external agents' tokens (`ext.<name>.<mac>`)",
    pattern: /(\bext\.[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\.)[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
    sample: 'Bearer-less ext.claude-code.KS7A9lc7h6RyIXGxeZXA3FxiPlcfVpGaoHS0u4VMjQ0 in a log',
    secrets: ['KS7A9lc7h6RyIXGxeZXA3FxiPlcfVpGaoHS0u4VMjQ0'],
  },
  {
    name: 'PEM private keys (also when the END line never came: a cut stderr tail)',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----|[\s\S]*$)/g,
    sample: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA (cut here',
    secrets: ['b3BlbnNzaC1rZXktdjEAAAAA'],
  },
];

/** One pass that says whether any pattern could match: most strings have no credential at all. */
const ANY_CREDENTIAL = new RegExp(CREDENTIAL_PATTERNS.map((p) => `(?:${p.pattern.source})`).join('|'), 'i');

export const REDACTED = '[REDACTED]';

/** Replaces credentials in a string; `secrets` are exact values (the bridge's tokens) to remove too. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = removeSecrets(text, secrets);
  if (!ANY_CREDENTIAL.test(out)) return out;
  for (const { pattern } of CREDENTIAL_PATTERNS) {
    out = out.replace(pattern, (match, prefix: unknown) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return out;
}

/** Only the exact `secrets` (the bridge's tokens): what an agent's reply loses, and nothing else. */
export function removeSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret && out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * A piece ending in fewer characters of a secret's start than this is passed on whole
 * (SECURITY.md#what-the-bridge-guarantees). Ordinary text ends in a secret's first character often (a token's first character is one of 64, and a
 * bridge has several tokens): held back, that character stayed off the person's screen for as long as the
 * agent was quiet (`first words of the repl`). Ending in four characters of one by chance is a few in ten
 * million pieces.
 */
export const HOLD_FROM_CHARS = 4;

/**
 * Removes `secrets` from text that arrives in pieces. `push` returns what is safe to pass on; `end` returns
 * the rest. A tail that could be the start of a secret split across pieces is held back once it is
 * `HOLD_FROM_CHARS` long; a shorter one is passed on, and when the next piece completes the secret, the
 * rest of it is replaced: at most the secret's first three characters are shown, before `[REDACTED]`.
 */
export class SecretFilter {
  private held = '';
  /** The last characters passed on, fewer than HOLD_FROM_CHARS: a secret that started in them ends in the next piece. */
  private passed = '';

  constructor(private readonly secrets: readonly string[]) {}

  push(piece: string): string {
    const text = removeSecrets(this.completeStarted(this.held + piece), this.secrets);
    const keep = this.heldBackLength(text);
    this.held = text.slice(text.length - keep);
    const out = text.slice(0, text.length - keep);
    if (out !== '') this.passed = (this.passed + out.slice(-(HOLD_FROM_CHARS - 1))).slice(-(HOLD_FROM_CHARS - 1));
    return out;
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    this.passed = '';
    return rest;
  }

  /**
   * `text` with a secret whose first characters were passed on already cut off where it goes on. Compared in
   * place, as below: every piece passes here once per secret.
   */
  private completeStarted(text: string): string {
    const before = this.passed;
    for (const secret of this.secrets) {
      for (let k = Math.min(before.length, secret.length - 1); k > 0; k -= 1) {
        let i = 0;
        while (i < k && before.charCodeAt(before.length - k + i) === secret.charCodeAt(i)) i += 1;
        if (i === k && text.startsWith(secret.slice(k))) return REDACTED + text.slice(secret.length - k);
      }
    }
    return text;
  }

  /**
   * How much of `text`'s end to hold: the longest tail of what was passed on and `text` together that is a
   * proper prefix of a secret, when it is HOLD_FROM_CHARS long (the part of it inside `text`), else nothing.
   * Compared in place, character by character, from where a tail could start: a streamed reply passes here
   * once per piece (a thousand pieces per MB), and a substring per candidate length was most of what this
   * filter allocated.
   */
  private heldBackLength(text: string): number {
    const before = this.passed;
    const length = before.length + text.length;
    const at = (i: number): number => (i < before.length ? before.charCodeAt(i) : text.charCodeAt(i - before.length));
    let longest = 0;
    for (const secret of this.secrets) {
      // The leftmost start that matches to the end is this secret's longest tail.
      for (let start = Math.max(length - secret.length + 1, 0); start < length - longest; start += 1) {
        let n = 0;
        while (start + n < length && at(start + n) === secret.charCodeAt(n)) n += 1;
        if (start + n === length) {
          longest = n;
          break;
        }
      }
    }
    return longest < HOLD_FROM_CHARS ? 0 : Math.min(longest, text.length);
  }
}
