import type { Part } from './task.js';

/**
 * Credential-shaped strings, removed from every text the bridge writes itself: its log, the audit log,
 * error messages, and a task's status texts (failure reasons built from an agent's stderr, warnings).
 * The bridge's own tokens are removed from everything, agents' replies included
 * (SECURITY.md#what-the-bridge-guarantees). Redact a whole text before cutting a preview from it: a cut can split a
 * secret past recognition.
 */
const CREDENTIAL_PATTERNS: RegExp[] = [
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g, // OpenAI / Anthropic-style API keys
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g, // GitHub fine-grained tokens
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, // GitHub tokens
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bxapp-[0-9]-[A-Za-z0-9-]{10,}/g, // Slack app-level tokens
  /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g, // Slack webhooks
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  // AWS secret access keys: 40 characters of base64 after the name they are always given.
  /((?:aws_secret_access_key|aws_secret_key|secretaccesskey)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}/gi,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, // JWTs (an unsigned one too)
  /(bearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi, // Authorization values
  // password=..., secret: ..., api_key=..., token=... (key=value, JSON, YAML, URLs' query strings)
  /((?:password|passwd|pwd|secret|client_secret|api[_-]?key|access[_-]?token|auth[_-]?token)["']?\s*[:=]\s*["']?)[^\s"'&,;}]{3,}/gi,
  // URL credentials: scheme://user:password@host
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s/@]+(?=@)/gi,
  // PEM private keys, also when the END line never came (a cut stderr tail).
  /-----BEGIN [A-Z ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----|[\s\S]*$)/g,
];

/** One pass that says whether any pattern could match: most strings have no credential at all. */
const ANY_CREDENTIAL = new RegExp(CREDENTIAL_PATTERNS.map((p) => `(?:${p.source})`).join('|'), 'i');

export const REDACTED = '[REDACTED]';

/** Replaces credentials in a string; `secrets` are exact values (the bridge's tokens) to remove too. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = removeSecrets(text, secrets);
  if (!ANY_CREDENTIAL.test(out)) return out;
  for (const pattern of CREDENTIAL_PATTERNS) {
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
 * A whole part an agent reported (a text resource, JSON data, a file's link and name) without `secrets`,
 * like its streamed text. A file's bytes are passed on as they are: a binary is not text to edit.
 */
export function removeSecretsFromPart(part: Part, secrets: readonly string[]): Part {
  const clean = (text: string): string => removeSecrets(text, secrets);
  switch (part.kind) {
    case 'text':
      return { ...part, text: clean(part.text) };
    case 'data': {
      // Tokens are base64url, never escaped in JSON, so they are found (and replaced) in its text.
      const json = JSON.stringify(part.data);
      const cleaned = clean(json);
      return cleaned === json ? part : { ...part, data: JSON.parse(cleaned) as Record<string, unknown> };
    }
    case 'file': {
      const { uri, name } = part.file;
      return {
        ...part,
        file: {
          ...part.file,
          ...(uri !== undefined ? { uri: clean(uri) } : {}),
          ...(name !== undefined ? { name: clean(name) } : {}),
        },
      };
    }
    default: {
      const never: never = part;
      return never;
    }
  }
}

/**
 * Removes `secrets` from text that arrives in pieces: `push` returns what is safe to pass on and holds
 * back a tail that could be the start of a secret split across pieces; `end` returns the rest.
 */
export class SecretFilter {
  private held = '';

  constructor(private readonly secrets: readonly string[]) {}

  push(piece: string): string {
    const text = removeSecrets(this.held + piece, this.secrets);
    const keep = this.heldBackLength(text);
    this.held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  /** The longest tail of `text` that is a proper prefix of a secret. */
  private heldBackLength(text: string): number {
    let longest = 0;
    for (const secret of this.secrets) {
      for (let n = Math.min(secret.length - 1, text.length); n > longest; n -= 1) {
        if (text.endsWith(secret.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }
}
