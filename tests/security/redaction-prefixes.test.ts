/**
 * Every prefix and form each credential pattern claims to cover (main/domain/redaction.ts, SECURITY.md
 * "What the bridge guarantees"), one realistic sample each: the right prefix, length and alphabet, and
 * fake. A pattern narrowed by one letter (`gh[pou]_` losing the `ghs_` tokens GitHub Actions hands every
 * workflow) fails its own row. Each sample is tried against its pattern alone, so another pattern catching
 * the same text cannot hide the narrowing, and through `redact()`, which is what every log line goes through.
 */
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_PATTERNS, redact, REDACTED } from '../../main/domain/redaction.js';

interface Form {
  /** The prefix or shape this row stands for. */
  form: string;
  sample: string;
  /** What must be gone after redaction. */
  secret: string;
}

/** By pattern name, as CREDENTIAL_PATTERNS names them; every pattern has a row (checked below). */
const FORMS: Record<string, Form[]> = {
  'OpenAI / Anthropic / Langfuse-style keys (`sk-`, `pk-`, `rk-`)': [
    {
      form: 'sk- (OpenAI, legacy)',
      sample: 'OPENAI_KEY sk-hwuiA9vwxTxtJKy0XFhjJ9iZhTwA5LuwUEBH9FXWuJGOAHIJ loaded',
      secret: 'hwuiA9vwxTxtJKy0XFhjJ9iZhTwA5LuwUEBH9FXWuJGOAHIJ',
    },
    {
      form: 'sk-proj- (OpenAI project key)',
      sample: 'using sk-proj-wqO8tDCC9TWi2o4RA2-fg-rVWVYc4okD3wwWkRJChwGBdRZWhEnxysetvlTjR-4c7xDBRFo-b_fX now',
      secret: 'wqO8tDCC9TWi2o4RA2-fg-rVWVYc4okD3wwWkRJChwGBdRZWhEnxysetvlTjR-4c7xDBRFo-b_fX',
    },
    {
      form: 'sk-ant-api03- (Anthropic)',
      sample:
        'x-api-key sk-ant-api03-dovFfONsz_Yu4m51Ec6xXLfoyhXeGZ3HLZPcuQ6zZhlCio68If5vYUOpXjHD5lPzAUwj6hOjCXkxZjs4cXVgSZlDKOr2oAA rejected',
      secret: 'dovFfONsz_Yu4m51Ec6xXLfoyhXeGZ3HLZPcuQ6zZhlCio68If5vYUOpXjHD5lPzAUwj6hOjCXkxZjs4cXVgSZlDKOr2oAA',
    },
    {
      form: 'sk-lf- (Langfuse secret key)',
      sample: 'LANGFUSE_SECRET_KEY sk-lf-9bc263b0-b612-402c-8517-5f8bdf2be77a',
      secret: '9bc263b0-b612-402c-8517-5f8bdf2be77a',
    },
    {
      form: 'pk-lf- (Langfuse public key)',
      sample: 'LANGFUSE_PUBLIC_KEY pk-lf-324bea49-e5ea-49ed-b1d6-ff21b73ea42c',
      secret: '324bea49-e5ea-49ed-b1d6-ff21b73ea42c',
    },
    {
      form: 'rk-',
      sample: 'restricted rk-9RjadusC9BjnBG4BrrA7HOWNVYaejDlh in use',
      secret: '9RjadusC9BjnBG4BrrA7HOWNVYaejDlh',
    },
  ],
  'Stripe secret and restricted keys (`sk_live_`, `sk_test_`, `rk_live_`)': [
    {
      form: 'sk_live_',
      sample:
        'stripe 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 end',
      secret: '51RoK2UPC77gPqqWXNAA4vL8bBUKUx7MFfqXUgxyudzuDlq4xZCNdZg4yc4DV3VLOCn5WNbT9LCGtSLmtbOIFTBoyOretOAzPZo',
    },
    { form: 'sk_test_', sample: 'stripe sk_test_iiwaCFOt4kI058UFCLhrQvQF end', secret: 'iiwaCFOt4kI058UFCLhrQvQF' },
    { form: 'rk_live_', sample: 'stripe rk_live_OcFeSn91NTrWJK8DUIfU0sFW end', secret: 'OcFeSn91NTrWJK8DUIfU0sFW' },
    { form: 'rk_test_', sample: 'stripe rk_test_XyHxxR89mjSD2gRkOV07KdPS end', secret: 'XyHxxR89mjSD2gRkOV07KdPS' },
  ],
  'GitHub fine-grained tokens (`github_pat_`)': [
    {
      form: 'github_pat_',
      sample:
        'remote: 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 denied',
      secret: '11QV1dJvPKI6TP05XKwYiv_F09agEHX3Iu9XvHYPcFa3PQyT5KmzH5O3cVPm1KXhAuLqF7awOuGZeUiA7G',
    },
  ],
  'GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`)': [
    {
      form: 'ghp_ (personal)',
      sample: 'token ghp_DI1MDHEV4yjyjMwQhJymAwfNXGEvZeon1miu',
      secret: 'DI1MDHEV4yjyjMwQhJymAwfNXGEvZeon1miu',
    },
    {
      form: 'gho_ (OAuth)',
      sample: 'oauth gho_BiTCGYpciahzIPcl7wDvzT5whH2dT4EKbax8 ok',
      secret: 'BiTCGYpciahzIPcl7wDvzT5whH2dT4EKbax8',
    },
    {
      form: 'ghu_ (user-to-server)',
      sample: 'app user ghu_tlwIKS3ipdM2MdY4mAACmmR65MM9BNwU79LW ok',
      secret: 'tlwIKS3ipdM2MdY4mAACmmR65MM9BNwU79LW',
    },
    {
      form: 'ghs_ (server-to-server: GitHub Actions GITHUB_TOKEN)',
      sample: 'fatal: could not read from https://x-access-token ghs_cH2OQOrZylAdmXI9BPuahYQclVUBubm2Ub7j',
      secret: 'cH2OQOrZylAdmXI9BPuahYQclVUBubm2Ub7j',
    },
    {
      form: 'ghr_ (refresh)',
      sample: 'refresh ghr_KtZub1OBITJdCo70La2G2zR2IFVGzUWdLsCo ok',
      secret: 'KtZub1OBITJdCo70La2G2zR2IFVGzUWdLsCo',
    },
  ],
  'GitLab personal access tokens (`glpat-`)': [
    { form: 'glpat-', sample: 'gitlab glpat-WcAOm9gelKHvjc7w-1Sg ok', secret: 'WcAOm9gelKHvjc7w-1Sg' },
  ],
  'npm tokens (`npm_`)': [
    {
      form: 'npm_',
      sample: '//registry.npmjs.org/:_authToken npm_gRKjCjmIvsBgBWCo1jtFstY1WksrmHLVBZrm',
      secret: 'gRKjCjmIvsBgBWCo1jtFstY1WksrmHLVBZrm',
    },
  ],
  'Hugging Face tokens (`hf_`)': [
    {
      form: 'hf_',
      sample: 'hub 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 ok',
      secret: 'qOwllkfAWuymtCBSpGoXWTLRcpCKPETHoE',
    },
  ],
  'Google API keys (`AIza`)': [
    {
      form: 'AIza',
      sample: 'GEMINI_API_KEY AIzaSyrIA0P9tqVPQjvYN_k3YKcVkmbScqA8L5H4 ok',
      secret: 'SyrIA0P9tqVPQjvYN_k3YKcVkmbScqA8L5H4',
    },
  ],
  'Slack tokens (`xoxb-`, `xoxp-`, `xoxe-`, `xoxe.xoxp-`, ...)': [
    {
      form: 'xoxa-',
      sample: 'slack xoxa-2-8190983083617-9914801450707-80cfa222ef8e6becc0973db25b18dc70',
      secret: '8190983083617-9914801450707-80cfa222ef8e6becc0973db25b18dc70',
    },
    {
      form: 'xoxb- (bot)',
      sample: 'SLACK_BOT xoxb-6917898788281-3500974579706-EpczAeF4DTZ5EODNFXj8AC77',
      secret: '6917898788281-3500974579706-EpczAeF4DTZ5EODNFXj8AC77',
    },
    {
      form: 'xoxp- (user)',
      sample: 'slack xoxp-0071444038075-9689866071835-3500974579706-9975297676604b100e7c4f4804c275cd',
      secret: '0071444038075-9689866071835-3500974579706-9975297676604b100e7c4f4804c275cd',
    },
    {
      form: 'xoxo-',
      sample: 'slack xoxo-0562529000778-4771853140587-THZIWC8ibhvEezNY5WkUl0BI',
      secret: '0562529000778-4771853140587-THZIWC8ibhvEezNY5WkUl0BI',
    },
    {
      form: 'xoxs- (session)',
      sample: 'slack xoxs-3769667022234-1427413488043-cc85aa6cb746b10747e2206aef6bb280',
      secret: '3769667022234-1427413488043-cc85aa6cb746b10747e2206aef6bb280',
    },
    {
      form: 'xoxr- (refresh)',
      sample: 'slack xoxr-3182652352392-1396522181278-wLBHjLJNCWoFJpQTA35xx20W',
      secret: '3182652352392-1396522181278-wLBHjLJNCWoFJpQTA35xx20W',
    },
    {
      form: 'xoxe-1- (refresh token of a rotating or config token)',
      sample:
        'SLACK_REFRESH_TOKEN=xoxe-1-My0xLTMxODI2NTIzNTIzOTItMTM5NjUyMjE4MTI3OC05OTc1Mjk3Njc2NjA0YjEwMGU3YzRmNDgwNGMyNzVjZA',
      secret: 'My0xLTMxODI2NTIzNTIzOTItMTM5NjUyMjE4MTI3OC05OTc1Mjk3Njc2NjA0YjEwMGU3YzRmNDgwNGMyNzVjZA',
    },
    {
      form: 'xoxe.xoxp-1- (rotating access token, app configuration token)',
      sample:
        'config token xoxe.xoxp-1-Mi0yLTMxODI2NTIzNTIzOTItOTY4OTg2NjA3MTgzNS1iYTcyNzA1MTY2MzE0YzdlYzJmOWVkNzU3YjI0ODRl ok',
      secret: 'Mi0yLTMxODI2NTIzNTIzOTItOTY4OTg2NjA3MTgzNS1iYTcyNzA1MTY2MzE0YzdlYzJmOWVkNzU3YjI0ODRl',
    },
  ],
  'Slack app-level tokens (`xapp-`)': [
    {
      form: 'xapp-1-',
      sample:
        'SLACK_APP_TOKEN=xapp-1-A05QAQJI31X-5413661968531-ba72705166314c7ec2f9ed757b2484e9a8e102c0b8847c30d6a6167c46e0e069',
      secret: 'A05QAQJI31X-5413661968531-ba72705166314c7ec2f9ed757b2484e9a8e102c0b8847c30d6a6167c46e0e069',
    },
  ],
  'Slack webhooks': [
    {
      form: 'hooks.slack.com/services/',
      sample: 'POST https://hooks.slack.com/services/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 failed: 404',
      secret: 'T031M45UB/B0I13VPBJ1T/gN5uH6sOmRx4OgYA2bDmxbJe',
    },
  ],
  'AWS access key ids (`AKIA`, `ASIA`)': [
    { form: 'AKIA', sample: 'aws_access_key_id = AKIAKRB5PXODSN5LXRYE', secret: 'KRB5PXODSN5LXRYE' },
    {
      form: 'ASIA (temporary, from STS)',
      sample: '{"AccessKeyId": "ASIAY34FZKBOKMUTVV7A", "Expiration": "2026-12-03T10:00:00Z"}',
      secret: 'Y34FZKBOKMUTVV7A',
    },
  ],
  'AWS secret access keys (after their name)': [
    {
      form: 'aws_secret_access_key = (credentials file)',
      sample: 'aws_secret_access_key = OPbXesRp+yiO2hExM8uujz9NPPJld9qxSaipiQBb',
      secret: 'OPbXesRp+yiO2hExM8uujz9NPPJld9qxSaipiQBb',
    },
    {
      form: 'AWS_SECRET_KEY= (environment)',
      sample: 'export AWS_SECRET_KEY=juqi4VFbhzg9aKb2ByVKKDRemmjn2eXNXfoQGLvg',
      secret: 'juqi4VFbhzg9aKb2ByVKKDRemmjn2eXNXfoQGLvg',
    },
    {
      form: '"SecretAccessKey": (sts JSON)',
      sample:
        '{"Credentials": {"AccessKeyId": "ASIA...", "SecretAccessKey": "1FMOTbPN9Mr6Y73Wki+bCZeKvlLS6LSbYzJaO9x1"}}',
      secret: '1FMOTbPN9Mr6Y73Wki+bCZeKvlLS6LSbYzJaO9x1',
    },
  ],
  'JWTs (an unsigned one too)': [
    {
      form: 'signed (HS256)',
      sample:
        'id eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QgVXNlciIsImlhdCI6MTcwMDAwMDAwMH0.lYC6gKre_JMQkKLrIKzTTr2xnYpyrii0BwHCqJt5xJp end',
      secret: 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QgVXNlciIsImlhdCI6MTcwMDAwMDAwMH0',
    },
    {
      form: 'unsigned (alg none, empty signature)',
      sample: 'jwt eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJzdmMtZGVwbG95IiwiZXhwIjoxOTAwMDAwMDAwfQ. end',
      secret: 'eyJzdWIiOiJzdmMtZGVwbG95IiwiZXhwIjoxOTAwMDAwMDAwfQ',
    },
  ],
  '`Authorization: Basic` / `Bearer` / `Token` values': [
    { form: 'Basic', sample: 'Authorization: Basic ZGVwbG95OlRyMHViNGRvciYz', secret: 'ZGVwbG95OlRyMHViNGRvciYz' },
    {
      form: 'Bearer',
      sample: '> authorization: Bearer qXqWWGRiYENu2_hFEKj3rM5_l1Wvs3xsZO.DvbYs',
      secret: 'qXqWWGRiYENu2_hFEKj3rM5_l1Wvs3xsZO.DvbYs',
    },
    {
      form: 'token (GitHub API style)',
      sample: '{"Authorization": "token 8eb670e4a0edcd2824e8010c3df15741fe4ca15f"}',
      secret: '8eb670e4a0edcd2824e8010c3df15741fe4ca15f',
    },
    {
      form: 'Digest',
      sample:
        'Authorization: Digest username="deploy", realm="api@example.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/v1/jobs", response="f43fdd852513ccb86678010b0e76d11f"',
      secret: 'f43fdd852513ccb86678010b0e76d11f',
    },
    {
      form: 'Proxy-Authorization: Basic',
      sample: 'Proxy-Authorization: Basic ZGVwbG95OlRyMHViNGRvciYz',
      secret: 'ZGVwbG95OlRyMHViNGRvciYz',
    },
  ],
  'Bearer values anywhere': [
    {
      form: 'Bearer',
      sample: 'curl -H "X-Upstream: Bearer qXqWWGRiYENu2_hFEKj3rM5_l1Wvs3xsZO.DvbYs" https://api.example.com',
      secret: 'qXqWWGRiYENu2_hFEKj3rM5_l1Wvs3xsZO.DvbYs',
    },
    {
      form: 'bearer (lower case)',
      sample: 'retrying with bearer 8eb670e4a0edcd2824e8010c3df15741fe4ca15f',
      secret: '8eb670e4a0edcd2824e8010c3df15741fe4ca15f',
    },
  ],
  '`password=`, `secret=`, `client_secret=`, `api_key=` values': [
    { form: 'password=', sample: 'mysql -u root --password=Tr0ub4dor&3', secret: 'Tr0ub4dor' },
    { form: 'passwd:', sample: 'passwd: c0rrect-h0rse', secret: 'c0rrect-h0rse' },
    { form: 'pwd=', sample: 'Server=db;Uid=app;Pwd=S3cr3t!x;', secret: 'S3cr3t!x' },
    { form: 'secret=', sample: 'webhook secret=whsec_f43fdd852513ccb8 set', secret: 'whsec_f43fdd852513ccb8' },
    {
      form: 'client_secret (JSON)',
      sample: '{"client_id": "app", "client_secret": "GOCSPX-1FMOTbPN9Mr6Y73Wki"}',
      secret: 'GOCSPX-1FMOTbPN9Mr6Y73Wki',
    },
    { form: 'api_key=', sample: 'GET /v2/search?q=x&api_key=9975297676604b10', secret: '9975297676604b10' },
    { form: 'api-key: (YAML)', sample: 'api-key: 80cfa222ef8e6bec', secret: '80cfa222ef8e6bec' },
    { form: 'apikey=', sample: 'APIKEY=e17313a0a7f77392', secret: 'e17313a0a7f77392' },
  ],
  '`token=` values (also `"token": "..."`, `GH_TOKEN=`, `?access_token=`)': [
    { form: 'token=', sample: 'login token=4e438b794bc8bce2 ok', secret: '4e438b794bc8bce2' },
    { form: '"token": (JSON)', sample: '{"token": "cc85aa6cb746b107"}', secret: 'cc85aa6cb746b107' },
    { form: 'GH_TOKEN=', sample: 'export GH_TOKEN=0ed9e0611e041736', secret: '0ed9e0611e041736' },
    {
      form: '?access_token=',
      sample: 'GET /api/v4/projects?access_token=ba72705166314c7e&per_page=20',
      secret: 'ba72705166314c7e',
    },
    { form: 'refresh_token: (YAML)', sample: 'refresh_token: 1396522181278abc', secret: '1396522181278abc' },
  ],
  'URL credentials (`scheme://user:password@host`)': [
    {
      form: 'http:// proxy',
      sample: 'proxy http://bob:p@ss/w0rd@proxy.example:8080 up',
      secret: 'p@ss/w0rd',
    },
    {
      form: 'https:// git remote',
      sample: 'fatal: unable to access https://deploy:Tr0ub4dor3@git.example.com/team/repo.git/',
      secret: 'Tr0ub4dor3',
    },
    {
      form: 'postgresql:// DSN',
      sample: 'DATABASE_URL=postgresql://app:5f8bdf2be77a@db.internal:5432/main',
      secret: '5f8bdf2be77a',
    },
    {
      form: 'mongodb+srv:// DSN',
      sample: 'connect mongodb+srv://svc:ff21b73ea42c@cluster0.example.net/admin',
      secret: 'ff21b73ea42c',
    },
    { form: 'redis://', sample: 'redis://default:8517-5f8bdf@cache:6379/0 refused', secret: '8517-5f8bdf' },
  ],
  "contactor external agents' tokens (`ext.<name>.<mac>`)": [
    {
      form: 'a plain name',
      sample: 'url http://127.0.0.1:8791/mcp token ext.claude-code.KS7A9lc7h6RyIXGxeZXA3FxiPlcfVpGaoHS0u4VMjQ0',
      secret: 'KS7A9lc7h6RyIXGxeZXA3FxiPlcfVpGaoHS0u4VMjQ0',
    },
    {
      form: 'a name with dots, quoted in JSON',
      sample: '{"headers":{"x":"ext.my.editor-2.ZjxrvfO2oP6FlqZjtH5vlkmfK93r38KUJZvq1xqGOs0"}}',
      secret: 'ZjxrvfO2oP6FlqZjtH5vlkmfK93r38KUJZvq1xqGOs0',
    },
  ],
  'PEM private keys (also when the END line never came: a cut stderr tail)': [
    {
      form: 'RSA, whole',
      sample:
        'key:\n-----BEGIN RSA PRIVATE KEY-----\nBR7p2JT2ymXWYT9WLg4ZgvMDT26kb/JYm4r53t0AVDJbqfOwQBsZg9zg8eAy86Bx\n-----END RSA PRIVATE KEY-----\nloaded',
      secret: 'BR7p2JT2ymXWYT9WLg4ZgvMDT26kb/JYm4r53t0AVDJbqfOwQBsZg9zg8eAy86Bx',
    },
    {
      form: 'PKCS#8 (PRIVATE KEY), whole',
      sample:
        '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7p2JT2ymXWYT9\n-----END PRIVATE KEY-----',
      secret: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7p2JT2ymXWYT9',
    },
    {
      form: 'EC, whole',
      sample:
        '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBR7p2JT2ymXWYT9WLg4ZgvMDT26kb/JYm4r53t0AVDJoAoGCCqGSM49\n-----END EC PRIVATE KEY-----',
      secret: 'MHcCAQEEIBR7p2JT2ymXWYT9WLg4ZgvMDT26kb/JYm4r53t0AVDJoAoGCCqGSM49',
    },
    {
      form: 'ENCRYPTED, whole',
      sample:
        '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQIBR7p2JT2ymXWYT9W\n-----END ENCRYPTED PRIVATE KEY-----',
      secret: 'MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQIBR7p2JT2ymXWYT9W',
    },
    {
      form: 'OPENSSH, cut before its END line',
      sample: 'stderr tail: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB',
      secret: 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB',
    },
  ],
};

/** What redact() does with one pattern: a first capture group is a prefix kept before the marker. */
function redactWithOnly(pattern: RegExp, text: string): string {
  return text.replace(new RegExp(pattern.source, pattern.flags), (match, prefix: unknown) =>
    typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
  );
}

describe('every form each credential pattern covers', () => {
  it('has a row for every pattern', () => {
    expect(Object.keys(FORMS).sort()).toEqual(CREDENTIAL_PATTERNS.map((p) => p.name).sort());
  });

  const rows = Object.entries(FORMS).flatMap(([name, forms]) => forms.map((f) => ({ name, ...f })));
  it.each(rows)('$form ($name): its pattern alone and redact() remove it', ({ name, sample, secret }) => {
    const { pattern } = CREDENTIAL_PATTERNS.find((p) => p.name === name)!;
    expect(sample).toContain(secret);
    expect(redactWithOnly(pattern, sample), `${name} alone on ${sample}`).not.toContain(secret);
    const whole = redact(sample);
    expect(whole, `redact(${sample})`).not.toContain(secret);
    expect(whole).toContain(REDACTED);
  });
});
