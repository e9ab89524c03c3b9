/**
 * The layering of docs/architecture.md#what-may-import-what as data, checked by tests/layering.test.ts.
 * Edit here when a layer, a folder or an allowance changes; the checker (checker.ts) never names a file.
 *
 * Paths are from the repository root with forward slashes. A folder (ending in `/`) covers everything under it,
 * sub-folders included, so `main/backends/acp/` needs no line of its own; a file names one file. Every path
 * named here must exist (a test says which do not), so moving a file cannot silently drop its allowance.
 *
 * The table is docs/architecture.md's, plus what it leaves implicit, said explicitly: the third-party packages each
 * layer may use, node: builtins wherever I/O happens (never in domain/, runtime/, schema/, renderer/), type-only
 * zod where schema types flow, and the small modules the table does not name (config/data-dir.ts,
 * audit/logging.ts).
 */

export type Layer =
  | 'domain'
  | 'ports'
  | 'schema'
  | 'config'
  | 'runtime'
  | 'backends'
  | 'stores'
  | 'transport'
  | 'server'
  | 'wiring'
  | 'shell'
  | 'cli'
  | 'data-dir'
  | 'logging'
  | 'audit'
  | 'platform'
  | 'front-door-acp'
  | 'preload'
  | 'renderer'
  | 'front-door-mcp';

/** Where each layer lives. The longest matching path wins (a file inside a folder may be placed apart). */
export const PLACES: Record<string, Layer> = {
  'main/domain/': 'domain',
  'main/schema/': 'schema',
  'main/runtime/': 'runtime',
  'main/backends/': 'backends',
  'main/stores/': 'stores',
  'main/transport/': 'transport',
  'main/shell/': 'shell',
  'main/cli/': 'cli',
  // front-doors/acp/: the ACP agent for editors (`contactor acp`), speaking to the bridge as any client does.
  'main/front-doors/acp/': 'front-door-acp',
  'preload/': 'preload',
  'renderer/': 'renderer',
  'main/ports.ts': 'ports',
  'main/server.ts': 'server',
  // config/: loading and watching config.yaml, and what it decides about agents (known products, the cwd roots
  // checked with node:fs, the inherited environment agents may not see).
  'main/config/': 'config',
  // The bridge's own files in its data dir (lock, token, discovery, modes): beside the config, below everything.
  'main/config/data-dir.ts': 'data-dir',
  'main/config/data-dir-modes.ts': 'data-dir',
  // wiring/: the composition root (wiring.ts) and its parts: agents, the HTTP edge with its server, live reload.
  'main/wiring/': 'wiring',
  // audit/: what the bridge records: the audit log and its store decorator; the bridge log (its own layer: below
  // every layer that logs).
  'main/audit/': 'audit',
  'main/audit/logging.ts': 'logging',
  // platform/: path containment and the bridge's own files by real path and identity — plain node:, below every
  // layer that touches files, so every security check asks the same question the same way.
  'main/platform/': 'platform',
  // front-doors/mcp/: the MCP server (`contactor mcp`, `/mcp`): tools translated into the bridge's own JSON-RPC
  // methods through a BridgeRpc, so each goes through the authority table and the chain like any client.
  'main/front-doors/mcp/': 'front-door-mcp',
};

/** The folders scanned: every TypeScript file under them must have a place above. */
export const SCANNED = ['main/', 'preload/', 'renderer/'];

/**
 * Globals a layer may use. `ecmascript` layers may use what the ECMAScript library declares (what
 * main/domain/tsconfig.json's `lib` gives) and the names in `plus`, never the ways out of the language
 * (ESCAPES, `import.meta`). `deny` layers may use anything but the names listed.
 */
export type GlobalsRule = { ecmascript: true; plus: string[] } | { deny: string[] };

/** Each reaches any global, or any code, by name: `globalThis.process`, `eval('process')`, `new Function(...)`. */
export const ESCAPES = ['globalThis', 'eval', 'Function'];

/** Node's own globals: what a page in the renderer must never see (it runs sandboxed, without Node). */
const NODE_GLOBALS = ['process', 'require', 'module', 'exports', 'global', 'Buffer', '__dirname', '__filename'];

/**
 * Timers are allowed in runtime/ (queues, expiry, the turn timer are its job) and not in domain/ (pure
 * functions and shapes; no clock but the ones the language has). Nothing that does I/O — `process`,
 * `fetch`, `require`, `console` — is allowed in either.
 */
const RUNTIME_GLOBALS = [
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  // The end of the current event-loop turn: when a burst of artifact text leaves as one chunk.
  'setImmediate',
  'clearImmediate',
  'queueMicrotask',
  'structuredClone',
  'AbortController',
  'AbortSignal',
  // randomUUID for ids: no I/O, no state outside the process.
  'crypto',
  // byteLength for the artifact budget.
  'Buffer',
];

export interface Rule {
  /** Layers, folders or files whose values may be imported. */
  imports: string[];
  /** Layers, folders or files that may be imported with `import type` only. */
  typeImports?: string[];
  /** Third-party packages; `{ name, only }` limits one to some files of the layer. */
  packages?: (string | { name: string; only: string[] })[];
  typePackages?: string[];
  /** node: builtins (I/O). */
  node: boolean;
  /** An import of the key (a layer) allowed only from these files (cli: wiring only for `serve`). */
  onlyFrom?: Partial<Record<Layer, string[]>>;
  /** Which globals the layer may use; unset: any. */
  globals?: GlobalsRule;
}

/** `contactor top`'s screen: the files that render with Ink and React (commands/top.ts loads them lazily). */
const TOP_SCREEN = [
  'main/cli/top/app.tsx',
  'main/cli/top/screen.tsx',
  'main/cli/top/components/header.tsx',
  'main/cli/top/components/agents-table.tsx',
  'main/cli/top/components/task-table.tsx',
  'main/cli/top/components/detail-pane.tsx',
  'main/cli/top/components/prompt-line.tsx',
];

export const RULES: Record<Layer, Rule> = {
  domain: { imports: ['domain'], node: false, globals: { ecmascript: true, plus: [] } },
  ports: { imports: [], typeImports: ['domain'], node: false, globals: { ecmascript: true, plus: [] } },
  schema: { imports: ['schema', 'domain'], packages: ['zod'], node: false, globals: { ecmascript: true, plus: [] } },
  config: { imports: ['schema', 'domain', 'platform'], packages: ['yaml'], node: true },
  runtime: {
    imports: ['runtime', 'ports', 'domain'],
    node: false,
    globals: { ecmascript: true, plus: RUNTIME_GLOBALS },
  },
  backends: {
    // transport/a2a-v1-convert.ts: the v1 wire ⇄ task mapping, pure code; the a2a kind reads v1 peers with it.
    imports: ['backends', 'ports', 'domain', 'schema', 'platform', 'main/transport/a2a-v1-convert.ts'],
    // eventsource-parser: the SSE replies of the http_api and a2a kinds. @a2a-js/sdk: the a2a kind's client.
    packages: [
      '@agentclientprotocol/sdk',
      'eventsource-parser',
      { name: '@a2a-js/sdk', only: ['main/backends/a2a/client.ts'] },
    ],
    node: true,
  },
  stores: { imports: ['stores', 'ports', 'domain', 'schema', 'platform'], packages: ['better-sqlite3'], node: true },
  transport: {
    imports: ['transport', 'domain', 'schema', 'platform'],
    typeImports: ['runtime', 'ports'],
    packages: [
      { name: 'koa', only: ['main/transport/http.ts'] },
      { name: '@koa/router', only: ['main/transport/http.ts'] },
      // raw-body: the JSON-RPC POST body, read with its size bound (and a refused one's id, peek-id.ts).
      { name: 'raw-body', only: ['main/transport/rpc-post.ts', 'main/transport/peek-id.ts'] },
    ],
    typePackages: ['zod'],
    node: true,
  },
  // data-dir: the discovery file the server publishes (docs/contract.md#discovery-file).
  server: { imports: ['runtime', 'transport', 'ports', 'domain', 'data-dir', 'platform'], node: true },
  wiring: {
    imports: [
      'domain',
      'ports',
      'schema',
      'config',
      'runtime',
      'backends',
      'stores',
      'transport',
      'server',
      'wiring',
      'data-dir',
      'logging',
      'audit',
      'platform',
      'front-door-mcp',
    ],
    node: true,
  },
  shell: {
    imports: ['shell', 'wiring', 'server', 'main/schema/ipc.ts', 'domain', 'platform'],
    packages: ['electron'],
    node: true,
  },
  cli: {
    // data-dir: the CLI reads the discovery file and the token the bridge wrote.
    // backends/acp/launch, stdio-stream, client-capabilities and process/child-process, win32-command, stderr-cause: `doctor` /
    // `probe` start an ACP agent exactly as the ACP backend does (same npm-shim probe, same stdio stream, same
    // declared capabilities), run `initialize` only and stop its tree — an explicit allowance for
    // cli/doctor/acp-probe.ts alone.
    imports: [
      'cli',
      'schema',
      'domain',
      'config',
      'data-dir',
      'wiring',
      'platform',
      'main/backends/acp/launch.ts',
      'main/backends/process/child-process.ts',
      'main/backends/process/win32-command.ts',
      'main/backends/process/stderr-cause.ts',
      'main/backends/acp/stdio-stream.ts',
      'main/backends/acp/client-capabilities.ts',
      // `contactor acp` and `contactor mcp` serve their front doors on stdio; `contactor mcp` and `token --agent`
      // derive an external agent's token exactly as the bridge checks it.
      'front-door-acp',
      'front-door-mcp',
      'main/transport/caller-tokens.ts',
    ],
    onlyFrom: { wiring: ['main/cli/commands/serve.ts'], backends: ['main/cli/doctor/acp-probe.ts'] },
    // yaml: `contactor setup` writes config entries; reading config goes through config.ts.
    packages: [
      'commander',
      'picocolors',
      'eventsource-parser',
      'yaml',
      { name: '@agentclientprotocol/sdk', only: ['main/cli/doctor/acp-probe.ts'] },
      // `contactor top`'s screen (Ink renders React components in the terminal): only its own folder, which
      // commands/top.ts loads lazily, so no other verb pays for loading them.
      { name: 'ink', only: TOP_SCREEN },
      { name: 'react', only: TOP_SCREEN },
    ],
    typePackages: ['zod', '@agentclientprotocol/sdk'],
    node: true,
  },
  // A front door translates a protocol into the bridge's own JSON-RPC and streams, through a link the CLI hands
  // it: it reads the wire shapes (schema/cli.ts) and never reaches the runtime, the transport or the wiring.
  'front-door-acp': {
    imports: ['front-door-acp', 'schema', 'domain'],
    packages: ['@agentclientprotocol/sdk'],
    typePackages: ['zod'],
    node: true,
  },
  'data-dir': { imports: ['platform'], typeImports: ['schema'], node: true },
  // The MCP front door: the official MCP SDK and zod at its edge; the bridge reached only through a BridgeRpc
  // (the in-process one knows the JSON-RPC endpoint as a type).
  'front-door-mcp': {
    imports: ['front-door-mcp', 'domain'],
    typeImports: ['transport'],
    packages: ['@modelcontextprotocol/sdk', 'zod'],
    node: true,
  },
  platform: { imports: ['platform'], node: true },
  // platform: bridge.log rotates the one way every log does (platform/log-rotation.ts).
  logging: { imports: ['domain', 'platform'], packages: ['pino'], node: true },
  // stores/delegating-store.ts: the audited store is a delegating store that adds the creation witness.
  audit: {
    imports: ['audit', 'logging', 'ports', 'domain', 'schema', 'platform', 'main/stores/delegating-store.ts'],
    node: true,
  },
  // The sandboxed preload's `require` knows electron, events, timers and url only (Electron's sandbox.md), and
  // it is bundled: the channel names of schema/ipc.ts are the one value it takes from main/ (its schemas are
  // marked pure, so the bundle drops zod).
  preload: { imports: ['main/schema/ipc.ts'], packages: ['electron'], node: false },
  // The approval window: a page, without Node or electron; it sees main/ only as types, except the one function
  // every screen shows agent text through (SECURITY.md#what-a-person-reads).
  renderer: {
    imports: ['renderer', 'main/domain/visible-text.ts'],
    typeImports: ['main/schema/ipc.ts', 'domain'],
    node: false,
    globals: { deny: NODE_GLOBALS },
  },
};

/** domain/ and ports.ts speak only of tasks, agents and turns, never of a mechanism. */
export const FORBIDDEN_IN_CORE = [
  'acp',
  'session',
  'prompt',
  'stdio',
  'subprocess',
  'process',
  'koa',
  'sqlite',
  'electron',
];
