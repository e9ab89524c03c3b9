/**
 * config.yaml, validated at load. Keys are snake_case as users write them; every key is documented in
 * resources/config.example.yaml. Adding a backend kind = one entry in `AgentConfigSchema`.
 */
import { z } from 'zod';

function isRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** Anchored with ^…$ and no flags: transport/rpc-post.ts AGENT_PATH embeds its source between them. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const EnvSchema = z.record(z.string(), z.string());

const ApprovalRuleSchema = z
  .object({
    action: z.enum(['allow', 'deny', 'ask']),
    /** Tool call kinds (read, edit, delete, move, search, execute, think, fetch, other). */
    kinds: z.array(z.string()).optional(),
    /** Regular expression tested against the raw command / input of the tool call. */
    command: z.string().refine(isRegex, 'command must be a valid regular expression').optional(),
    /** Glob-ish path prefix tested against the tool call's locations. */
    paths: z.array(z.string()).optional(),
  })
  .strict();
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/**
 * A folder in the config: absolute, because a relative one would resolve against wherever the bridge was
 * started (a shell, the desktop app, autostart), so an agent's root would move with it. A Linux path
 * (`/home/...`, a WSL agent's too), a drive path (`C:\...`) or a share (`\\server\share\...`).
 */
const AbsoluteFolder = z
  .string()
  .min(1)
  .refine(
    (p) => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(p),
    'must be an absolute path (relative paths are refused: they would depend on the folder the bridge was started in); write it in full, e.g. /home/me/project or C:\\Users\\me\\project, or use ${HOME}/project',
  );

/** Keys every agent kind shares. */
const CommonAgentShape = {
  description: z.string().optional(),
  cwd: AbsoluteFolder.optional(),
  /**
   * Where a task may ask the agent to run (its `cwd`): these folders and below. Default: the agent's
   * `cwd` and below, else the user's home. The bridge's data dir and config are never allowed.
   */
  allowed_cwds: z.array(AbsoluteFolder).optional(),
  env: EnvSchema.default({}),
  /** Let the agent see `user:password@` in the inherited proxy variables (stripped by default). */
  pass_proxy_credentials: z.boolean().default(false),
  /** Seconds a turn may run; time spent waiting for a person is not counted. */
  timeout_s: z
    .number()
    .positive()
    .max(7 * 24 * 3600, 'timeout_s is at most 7 days')
    .default(600),
  /** Default by kind (main/config/known-agents.ts decisionContractDefault): on for agents that can use it. */
  append_decision_contract: z.boolean().optional(),
  approval_timeout_s: z
    .number()
    .positive()
    .max(7 * 24 * 3600, 'approval_timeout_s is at most 7 days')
    .default(1800),
  approval_rules: z.array(ApprovalRuleSchema).default([]),
  /** Tasks waiting in this agent's queue before new sends are refused. */
  max_queue: z.number().int().positive().default(100),
  skills: z
    .array(
      z
        .object({
          id: z.string(),
          name: z.string(),
          description: z.string(),
          tags: z.array(z.string()).default([]),
          examples: z.array(z.string()).optional(),
        })
        .strict(),
    )
    .default([]),
  tags: z.array(z.string()).default([]),
};

const CommandSchema = z.array(z.string().min(1)).min(1, 'command needs at least the program to run');

export const SubprocessCliAgentSchema = z
  .object({
    kind: z.literal('subprocess_cli'),
    command: CommandSchema,
    prompt_via: z.enum(['stdin', 'arg']).default('stdin'),
    /** Fixed arguments placed before the prompt when prompt_via is arg. */
    prompt_flag: z.array(z.string()).default([]),
    ...CommonAgentShape,
  })
  .strict();

export const AcpAgentSchema = z
  .object({
    kind: z.literal('acp'),
    command: CommandSchema,
    /** Where the agent runs, so its paths are in the right OS. */
    platform: z.enum(['native', 'windows', 'wsl']).default('native'),
    distro: z.string().optional(),
    /** Seconds without a task before the agent's process is stopped. */
    idle_timeout_s: z.number().positive().default(900),
    /**
     * Seconds the agent may take to start and answer `initialize` (real agents take 20-40 s cold on a busy
     * machine); the bridge, `doctor` and `probe` all wait this long.
     */
    start_timeout_s: z.number().positive().default(60),
    /**
     * Seconds a canceled turn may take to end with the agent's `cancelled` stop reason before its process
     * is killed (which ends every session it holds).
     */
    cancel_grace_s: z.number().positive().default(10),
    fs_read: z.boolean().default(true),
    fs_write: z.boolean().default(true),
    terminal: z.boolean().default(true),
    /**
     * Offer the agent the bridge's own `contactor mcp` in each session (ACP `mcpServers`), so it can delegate
     * by tool call (docs/backends.md#contactor-mcp-in-every-session); false offers none.
     */
    offer_mcp: z.boolean().default(true),
    ...CommonAgentShape,
  })
  .strict();

const HttpUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
const EnvVarNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** An OpenAI-compatible chat-completions endpoint (docs/backends.md). */
export const HttpApiAgentSchema = z
  .object({
    kind: z.literal('http_api'),
    /** Up to the version segment, e.g. http://127.0.0.1:11434/v1; `/chat/completions` is appended. */
    base_url: HttpUrlSchema,
    model: z.string().min(1, 'model must not be empty'),
    /** Name of the environment variable holding the API key (the key itself never goes in config). */
    api_key_env: EnvVarNameSchema.optional(),
    headers: z.record(z.string(), z.string()).default({}),
    temperature: z.number().min(0).max(2).optional(),
    system_prompt: z.string().optional(),
    ...CommonAgentShape,
  })
  .strict();

/** A remote A2A agent (Hermes's gateway, another contactor's /agents/<name>, ...) by URL. */
export const A2aAgentSchema = z
  .object({
    kind: z.literal('a2a'),
    /** Where `/.well-known/agent-card.json` is found, e.g. http://127.0.0.1:9900. */
    url: HttpUrlSchema,
    /** Name of the environment variable holding the peer's bearer token. */
    token_env: EnvVarNameSchema.optional(),
    /** `auto` takes the peer card's first JSON-RPC interface, 1.0 before 0.3. */
    protocol: z.enum(['auto', '1.0', '0.3']).default('auto'),
    ...CommonAgentShape,
  })
  .strict();

export const AgentConfigSchema = z.discriminatedUnion('kind', [
  SubprocessCliAgentSchema,
  AcpAgentSchema,
  HttpApiAgentSchema,
  A2aAgentSchema,
]);
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type SubprocessCliAgentConfig = z.infer<typeof SubprocessCliAgentSchema>;
export type AcpAgentConfig = z.infer<typeof AcpAgentSchema>;
export type HttpApiAgentConfig = z.infer<typeof HttpApiAgentSchema>;
export type A2aAgentConfig = z.infer<typeof A2aAgentSchema>;

export const BridgeConfigSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8791),
    max_delegation_depth: z.number().int().min(1).default(3),
    data_dir: z.string().optional(),
    /** Largest JSON-RPC request body accepted, in bytes. */
    max_body_bytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    require_token: z.boolean().default(true),
    allowed_origins: z.array(z.string()).default([]),
    /** Agent turns running at once across all agents; more wait their turn (never dropped). */
    max_concurrent_tasks: z.number().int().positive().default(16),
    /**
     * Reply content kept per task (text bytes, files in decoded bytes); the rest is dropped, noted in the
     * reply, and `metadata.truncated` says how much.
     */
    max_artifact_bytes: z
      .number()
      .int()
      .positive()
      .default(32 * 1024 * 1024),
    /**
     * Requests per minute per caller: the identity its token proves (install, or one agent), else its address.
     * JSON-RPC POSTs, `/mcp` and the event feed, and the calls `/mcp`'s tools make inside the bridge all count.
     */
    rate_limit_per_minute: z.number().int().positive().default(600),
    /**
     * How long the MCP tool send_task (and get_task with wait) follows a task before it returns the task id and
     * how to follow it (docs/contract.md#mcp-tools), at `/mcp` and in `contactor mcp` (whose `--wait` wins).
     * Applies on reload.
     */
    mcp_wait_seconds: z.number().int().positive().default(120),
    /** Finished tasks are deleted past either limit (at startup, hourly and after every tenth of max_tasks new tasks); unfinished ones never. */
    history: z
      .object({
        max_age_days: z.number().positive().default(90),
        max_tasks: z.number().int().positive().default(10_000),
      })
      .strict()
      .default({ max_age_days: 90, max_tasks: 10_000 }),
    agents: z
      .record(z.string().regex(AGENT_NAME, 'agent names use letters, digits, "_", "-" and "."'), AgentConfigSchema)
      .default({}),
    /**
     * The agent a send to the root endpoint (`/`) goes to when it names none, so a client that knows only
     * the bridge's address reaches an agent (docs/contract.md#the-default-agent). Without it, the only
     * configured agent is the default; with several, such a send is refused naming them.
     */
    default_agent: z.string().optional(),
  })
  .strict()
  .superRefine((config, ctx) => {
    const name = config.default_agent;
    if (name === undefined || Object.hasOwn(config.agents, name)) return;
    const agents = Object.keys(config.agents);
    ctx.addIssue({
      code: 'custom',
      path: ['default_agent'],
      message: `"${name}" is not a configured agent; name one of: ${agents.join(', ') || '(none configured under agents:)'}`,
    });
  });
export type BridgeConfig = z.infer<typeof BridgeConfigSchema>;
