/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, `conformance server --url`) against
 * the bridge's `/mcp`. Each scenario that applies to a server without the suite's own fixture tools must
 * pass; the table below says, for every server scenario the suite has, whether it applies and why
 * (docs/contract.md#mcp-tools lists the same).
 *
 * The suite's client sends no token, so it reaches the bridge through a small proxy that adds an external
 * agent's bearer token and, for requests addressed to the proxy, the bridge's own Host (a foreign Host — the
 * DNS-rebinding probe — passes through untouched). Its DNS-rebinding scenario also expects a localhost
 * Origin to be served: the bridge refuses every Origin unless `allowed_origins` names it (SECURITY.md), so
 * the test bridge names the proxy's.
 */
import { execFile } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveExternalAgentToken } from '../../main/transport/caller-tokens.js';
import { REPO_ROOT, startTestBridge, type TestBridge } from '../helpers/bridge.js';

const CONFORMANCE = path.join(REPO_ROOT, 'node_modules', '.bin', 'conformance');

/** Every server scenario of conformance 0.1.16 (`conformance list --server`), applies or not, and why. */
const SCENARIOS: Record<string, { applies: true } | { applies: false; why: string }> = {
  'server-initialize': { applies: true },
  'logging-set-level': { applies: true },
  ping: { applies: true },
  'tools-list': { applies: true },
  'server-sse-multiple-streams': { applies: true },
  'dns-rebinding-protection': { applies: true },
  'completion-complete': { applies: false, why: 'contactor offers no completions (no prompts or resource templates)' },
  'tools-call-simple-text': { applies: false, why: "calls the suite's fixture tool test_simple_text" },
  'tools-call-image': { applies: false, why: "calls the suite's fixture tool test_image_content" },
  'tools-call-audio': { applies: false, why: "calls the suite's fixture tool test_audio_content" },
  'tools-call-embedded-resource': { applies: false, why: "calls the suite's fixture tool test_embedded_resource" },
  'tools-call-mixed-content': { applies: false, why: "calls the suite's fixture tool test_multiple_content_types" },
  'tools-call-with-logging': { applies: false, why: "calls the suite's fixture tool test_tool_with_logging" },
  'tools-call-error': { applies: false, why: "calls the suite's fixture tool test_error_handling" },
  'tools-call-with-progress': { applies: false, why: "calls the suite's fixture tool test_tool_with_progress" },
  'tools-call-sampling': {
    applies: false,
    why: "calls the suite's fixture tool test_sampling; contactor never samples",
  },
  'tools-call-elicitation': { applies: false, why: "calls the suite's fixture tool test_elicitation" },
  'json-schema-2020-12': { applies: false, why: "looks for the suite's fixture tool json_schema_2020_12_tool" },
  'elicitation-sep1034-defaults': {
    applies: false,
    why: "calls the suite's fixture tool test_elicitation_sep1034_defaults",
  },
  'elicitation-sep1330-enums': { applies: false, why: "calls the suite's fixture tool test_elicitation_sep1330_enums" },
  'server-sse-polling': { applies: false, why: "calls the suite's fixture tool test_reconnection" },
  'resources-list': { applies: false, why: 'contactor offers no resources' },
  'resources-read-text': { applies: false, why: 'contactor offers no resources' },
  'resources-read-binary': { applies: false, why: 'contactor offers no resources' },
  'resources-templates-read': { applies: false, why: 'contactor offers no resources' },
  'resources-subscribe': { applies: false, why: 'contactor offers no resources' },
  'resources-unsubscribe': { applies: false, why: 'contactor offers no resources' },
  'prompts-list': { applies: false, why: 'contactor offers no prompts' },
  'prompts-get-simple': { applies: false, why: 'contactor offers no prompts' },
  'prompts-get-with-args': { applies: false, why: 'contactor offers no prompts' },
  'prompts-get-embedded-resource': { applies: false, why: 'contactor offers no prompts' },
  'prompts-get-with-image': { applies: false, why: 'contactor offers no prompts' },
};

let bridge: TestBridge;
let proxy: Server;
let proxyUrl: string;

/** Listens on a free port first: the bridge's allowed_origins must name it before the bridge starts. */
async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  /** Where the proxy forwards to, and with which token: known once the bridge has started. */
  const to: { url?: URL; token: string } = { token: '' };
  proxy = createServer((req, res) => {
    const own = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    const headers = { ...req.headers, authorization: `Bearer ${to.token}` };
    if (own.has(req.headers.host ?? '')) headers.host = to.url!.host;
    const upstream = request(
      { host: to.url!.hostname, port: to.url!.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const port = await listen(proxy);
  bridge = await startTestBridge({
    config: { allowed_origins: [`http://localhost:${port}`, `http://127.0.0.1:${port}`] },
  });
  to.url = new URL(bridge.url);
  to.token = deriveExternalAgentToken(bridge.token, 'conformance');
  proxyUrl = `http://localhost:${port}/mcp`;
});
afterAll(async () => {
  proxy?.close();
  await bridge?.cleanup();
});

function runScenario(scenario: string): Promise<string> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [CONFORMANCE, 'server', '--url', proxyUrl, '--scenario', scenario, '--verbose'],
      { maxBuffer: 16 * 1024 * 1024 },
      (_err, stdout, stderr) => resolve(`${stdout}${stderr}`),
    ),
  );
}

describe('MCP conformance suite against /mcp', () => {
  it('the table names every server scenario the suite has', async () => {
    const listed = await new Promise<string>((resolve) =>
      execFile(process.execPath, [CONFORMANCE, 'list', '--server'], (_e, out) => resolve(out)),
    );
    const names = [...listed.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
    expect(names.sort()).toEqual(Object.keys(SCENARIOS).sort());
  });

  const applying = Object.entries(SCENARIOS)
    .filter(([, s]) => s.applies)
    .map(([name]) => name);
  it.each(applying)('%s passes', async (scenario) => {
    const out = await runScenario(scenario);
    // --verbose prints the scenario's checks as one JSON array.
    const checks = JSON.parse(out.slice(out.indexOf('['), out.lastIndexOf(']') + 1)) as {
      id: string;
      status: string;
    }[];
    const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'ERROR');
    expect(failed, out).toEqual([]);
    expect(checks.some((c) => c.status === 'SUCCESS')).toBe(true);
  });
});
