/**
 * The pinned agents (pinned/package.json at exact versions, pinned/package-lock.json with each tarball's
 * integrity) installed into a cache folder outside the repo, once per lock file and install recipe: a second
 * run with the same lock and the same recipe reuses it. `npm install` with the lock rather than `npm ci`:
 * npm 11 writes a lock without the other platforms' optional binaries of opencode-ai, which `npm ci` then
 * calls out of sync; install keeps every locked version and integrity.
 *
 * Install scripts stay off for every package except the ones an agent needs to be runnable
 * (RUN_INSTALL_SCRIPTS_OF): opencode-ai ships `bin/opencode.exe` as a stub that its postinstall replaces with
 * the platform's binary (the AVX2 or the baseline build, whichever this CPU runs). Gemini CLI's optional
 * native modules (keytar, node-pty) and Qwen Code's (@qwen-code/audio-capture) are left unbuilt; they run
 * without them. Claude Code needs no script: the Claude Code CLI that claude-agent-acp runs is the prebuilt
 * binary of the SDK's platform package (@anthropic-ai/claude-agent-sdk-linux-x64), an optional dependency npm
 * installs for this platform only.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const PINNED = path.join(import.meta.dirname, 'pinned');
const LOCK = path.join(PINNED, 'package-lock.json');

export const CACHE = process.env.CONTACTOR_AGENTS_CACHE ?? path.join(homedir(), '.cache', 'contactor-agents-lane');
export const AGENTS_BIN = path.join(CACHE, 'node_modules', '.bin');

/** How the cache is installed; part of the cache key, so a cache installed another way is installed again. */
const NPM_INSTALL_ARGS = ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund'];
const RUN_INSTALL_SCRIPTS_OF = ['opencode-ai'];

/**
 * One command per agent that runs only when the agent is installed runnable; checked on every run, cached or
 * not, so a cache that was installed wrong (or damaged since) fails here with the agent's own words.
 */
const RUNNABLE_CHECKS: { agent: string; bin: string; args: string[] }[] = [
  { agent: 'opencode-ai', bin: 'opencode', args: ['--version'] },
  { agent: '@zed-industries/codex-acp', bin: 'codex-acp', args: ['--help'] },
  { agent: '@google/gemini-cli', bin: 'gemini', args: ['--version'] },
  // `--cli` runs the Claude Code CLI the adapter wraps (the SDK's platform binary), not the adapter itself.
  { agent: '@agentclientprotocol/claude-agent-acp', bin: 'claude-agent-acp', args: ['--cli', '--version'] },
  { agent: '@qwen-code/qwen-code', bin: 'qwen', args: ['--version'] },
];

/** The cache key: the lock's bytes and the install recipe, so changing either installs afresh. */
export function cacheKey(lock: Buffer): string {
  return createHash('sha256')
    .update(lock)
    .update(JSON.stringify({ npm: NPM_INSTALL_ARGS, scripts: RUN_INSTALL_SCRIPTS_OF }))
    .digest('hex');
}

function npm(args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const run = spawnSync('npm', args, { cwd: CACHE, env, encoding: 'utf8', shell: process.platform === 'win32' });
  if (run.status !== 0) throw new Error(`npm ${args.join(' ')} in ${CACHE} failed:\n${run.stdout}\n${run.stderr}`);
}

/**
 * Runs `use` with an environment whose home is a folder of its own under the cache, removed after: what the
 * agents start writes its state there (~/.gemini, ~/.codex, OpenCode's XDG folders), never in the real home.
 */
async function inOwnHome(use: (env: NodeJS.ProcessEnv, home: string) => unknown): Promise<void> {
  const home = mkdtempSync(path.join(CACHE, 'home-'));
  try {
    await use(
      {
        ...process.env,
        HOME: home,
        USERPROFILE: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local', 'share'),
        XDG_STATE_HOME: path.join(home, '.local', 'state'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
      },
      home,
    );
  } finally {
    rmSync(home, { recursive: true, force: true, maxRetries: 5 });
  }
}

/** Why the check's command failed, in the agent's own words; undefined when it ran. */
function runnable(check: (typeof RUNNABLE_CHECKS)[number], env: NodeJS.ProcessEnv, home: string) {
  return new Promise<string | undefined>((resolve) => {
    execFile(
      path.join(AGENTS_BIN, check.bin),
      check.args,
      { cwd: home, env, encoding: 'utf8', timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve(
          err
            ? `${check.agent} is not runnable from ${CACHE} (\`${check.bin} ${check.args.join(' ')}\` exited ${err.code ?? err.signal}):\n${stdout}\n${stderr}`
            : undefined,
        ),
    );
  });
}

/** Side by side: each check is one agent's cold start (5-40 s on a loaded machine), and none needs another. */
async function checkRunnable(env: NodeJS.ProcessEnv, home: string): Promise<void> {
  const failures = (await Promise.all(RUNNABLE_CHECKS.map((check) => runnable(check, env, home)))).filter(
    (failure) => failure !== undefined,
  );
  if (failures.length > 0) throw new Error(failures.join('\n'));
}

/** Installs the pinned agents unless this lock and recipe are already installed; throws with npm's output when npm fails. */
export async function installPinnedAgents(): Promise<{ reused: boolean; versions: Record<string, string> }> {
  const stamp = cacheKey(readFileSync(LOCK));
  const stampFile = path.join(CACHE, '.install-key');
  const reused = existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp;
  if (!reused) {
    // The old key goes first: an install that fails halfway leaves no key, so the next run installs again.
    rmSync(stampFile, { force: true });
    rmSync(path.join(CACHE, '.lock-sha256'), { force: true });
    mkdirSync(CACHE, { recursive: true });
    copyFileSync(path.join(PINNED, 'package.json'), path.join(CACHE, 'package.json'));
    copyFileSync(LOCK, path.join(CACHE, 'package-lock.json'));
    npm(NPM_INSTALL_ARGS);
    // `npm rebuild <name>` runs that package's install scripts and no other's. OpenCode's postinstall.mjs
    // ends by running the binary (`--version`), which makes its cache folder: in a home of its own too.
    await inOwnHome((env) => npm(['rebuild', ...RUN_INSTALL_SCRIPTS_OF, '--no-audit', '--no-fund'], env));
  }
  await inOwnHome(checkRunnable);
  if (!reused) writeFileSync(stampFile, stamp);
  const pinned = JSON.parse(readFileSync(path.join(PINNED, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return { reused, versions: pinned.dependencies };
}
