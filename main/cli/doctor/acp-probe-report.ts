/** What an ACP probe found, in the words `doctor` and `probe` print. */
import type { AcpDeclaration, AcpProbeResult } from './acp-probe.js';
import type { Check } from './check.js';

/** How long `probe` waits for a non-ACP agent's answer (an ACP agent gets its own `start_timeout_s`). */
export const PROBE_TIMEOUT_MS = 10_000;

/** A start slower than this is worth a word (it works, but the first task waits that long). */
export const SLOW_START_MS = 10_000;

/** Capabilities worth a word: the ones that change what the bridge can do with the agent. */
export function capabilityList(declared: AcpDeclaration): string[] {
  const caps = declared.capabilities;
  const prompt = caps.promptCapabilities ?? {};
  return [
    caps.loadSession ? 'session/load' : undefined,
    prompt.image ? 'images' : undefined,
    prompt.audio ? 'audio' : undefined,
    prompt.embeddedContext ? 'embedded context' : undefined,
    caps.mcpCapabilities?.http ? 'MCP over HTTP' : undefined,
    caps.mcpCapabilities?.sse ? 'MCP over SSE' : undefined,
  ].filter((c): c is string => c !== undefined);
}

export function agentLabel(declared: AcpDeclaration): string {
  const info = declared.agentInfo;
  if (!info) return 'an unnamed agent';
  return `${info.title || info.name} ${info.version}`.trim();
}

export function summarize(declared: AcpDeclaration): string {
  const auth = declared.authMethods.map((m) => m.name || m.id);
  const caps = capabilityList(declared);
  return [
    `ACP v${declared.protocolVersion}, ${agentLabel(declared)}`,
    auth.length ? `login: ${auth.join(', ')}` : 'no login declared',
    caps.length ? caps.join(', ') : 'text prompts only',
  ].join('; ');
}

export function probeCheck(name: string, result: AcpProbeResult, slowStartMs = SLOW_START_MS): Check {
  const check = `acp ${name}`;
  if (!result.ok) {
    return {
      name: check,
      status: 'fail',
      detail: result.reason,
      fix: result.fix,
      ...(result.stderrTail ? { stderr: result.stderrTail } : {}),
      data: { launch: result.launch, stdoutNoise: result.stdoutNoise },
    };
  }
  const noise = result.stdoutNoise.length
    ? `; printed non-ACP text on stdout (${JSON.stringify(result.stdoutNoise[0])}), tolerated up to 50 lines a task`
    : '';
  // Slow is not broken: the bridge waits start_timeout_s, and so did this probe.
  const slow = result.startMs >= slowStartMs ? `; slow to start (${Math.round(result.startMs / 1000)} s)` : '';
  return {
    name: check,
    status: 'ok',
    detail: `${summarize(result.declared)}${slow}${noise}`,
    data: { launch: result.launch, via: result.via, ...result.declared },
  };
}
