/**
 * The real agents of the lane as a person would configure them, each pointed at its mock model server
 * (mock-models.ts) and set to ask permission before it runs a command or writes a file. Every agent gets
 * a HOME of its own (its settings, sessions and caches), so nothing of the machine's account is read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AGENTS_BIN } from './install.js';
import { anthropicServer } from './mock-anthropic.js';
import { chatCompletionsServer, geminiServer, responsesServer, type MockServer } from './mock-models.js';

export type LaneAgentName = 'codex' | 'gemini' | 'opencode' | 'claude' | 'qwen';

export interface LaneAgent {
  name: LaneAgentName;
  /** The config.yaml entry. */
  entry: Record<string, unknown>;
  mock: MockServer;
}

function bin(program: string): string {
  return path.join(AGENTS_BIN, program);
}

/** The lane's budgets: real agents start cold in 20-40 s on a loaded 2-core machine. */
const COMMON = { start_timeout_s: 120, cancel_grace_s: 30, timeout_s: 300, approval_timeout_s: 900 };

export async function laneAgent(name: LaneAgentName, home: string, workspace: string): Promise<LaneAgent> {
  mkdirSync(home, { recursive: true });
  const base = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local/state'),
  };
  switch (name) {
    case 'codex': {
      const mock = await responsesServer();
      const codexHome = path.join(home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      // untrusted: every command that is not a known read-only one asks (codex's "Ask" policy).
      writeFileSync(
        path.join(codexHome, 'config.toml'),
        [
          // A model codex-acp 0.16 knows (its own table): it then offers that model's tools (shell_command,
          // apply_patch) and prints no "model metadata not found" warning into the reply.
          'model = "gpt-5.3-codex"',
          'model_provider = "lane"',
          'approval_policy = "untrusted"',
          'sandbox_mode = "workspace-write"',
          '',
          '[model_providers.lane]',
          'name = "lane mock"',
          `base_url = "${mock.url}/v1"`,
          'wire_api = "responses"',
          'env_key = "LANE_API_KEY"',
          'request_max_retries = 0',
          'stream_max_retries = 0',
          '',
          `[projects."${workspace}"]`,
          'trust_level = "trusted"',
          '',
        ].join('\n'),
      );
      return {
        name,
        mock,
        entry: {
          kind: 'acp',
          command: [bin('codex-acp')],
          cwd: workspace,
          env: { ...base, CODEX_HOME: codexHome, LANE_API_KEY: 'lane-key', RUST_LOG: 'warn' },
          ...COMMON,
        },
      };
    }
    case 'gemini': {
      const mock = await geminiServer();
      const settings = path.join(home, '.gemini');
      mkdirSync(settings, { recursive: true });
      writeFileSync(
        path.join(settings, 'settings.json'),
        JSON.stringify(
          {
            general: { disableAutoUpdate: true, disableUpdateNag: true },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            security: { folderTrust: { enabled: false } },
          },
          null,
          2,
        ),
      );
      return {
        name,
        mock,
        entry: {
          kind: 'acp',
          command: [bin('gemini'), '--acp'],
          cwd: workspace,
          // Gemini CLI 0.61 fails to write a new file when the client serves fs/read_text_file.
          fs_read: false,
          env: {
            ...base,
            GOOGLE_GEMINI_BASE_URL: mock.url,
            GEMINI_API_KEY: 'lane-key',
            GEMINI_MODEL: 'gemini-2.5-flash',
          },
          ...COMMON,
        },
      };
    }
    case 'opencode': {
      const mock = await chatCompletionsServer();
      const config = path.join(home, 'opencode.json');
      writeFileSync(
        config,
        JSON.stringify(
          {
            $schema: 'https://opencode.ai/config.json',
            model: 'lane/lane-model',
            small_model: 'lane/lane-model',
            autoupdate: false,
            share: 'disabled',
            // OpenCode's default never asks.
            permission: { bash: 'ask', edit: 'ask' },
            provider: {
              lane: {
                npm: '@ai-sdk/openai-compatible',
                name: 'Lane mock',
                options: { baseURL: `${mock.url}/v1`, apiKey: 'lane-key' },
                models: { 'lane-model': { name: 'Lane model', tool_call: true } },
              },
            },
          },
          null,
          2,
        ),
      );
      return {
        name,
        mock,
        entry: {
          kind: 'acp',
          command: [bin('opencode'), 'acp'],
          cwd: workspace,
          env: {
            ...base,
            OPENCODE_CONFIG: config,
            OPENCODE_DISABLE_MODELS_FETCH: 'true',
            OPENCODE_DISABLE_AUTOUPDATE: 'true',
            OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
          },
          ...COMMON,
        },
      };
    }
    case 'claude': {
      const mock = await anthropicServer();
      const config = path.join(home, '.claude');
      mkdirSync(config, { recursive: true });
      // Claude Code's "default" mode asks before every command that is not read-only and every file write.
      // Prompt suggestions off: after each turn Claude Code asks the model, in a fork of the conversation
      // with the same tools, for the person's likely next prompt; the mock script would answer that fork
      // with the conversation's directive again (a second `run`, which Claude Code then refuses there).
      writeFileSync(
        path.join(config, 'settings.json'),
        JSON.stringify(
          { permissions: { defaultMode: 'default' }, autoUpdates: false, promptSuggestionEnabled: false },
          null,
          2,
        ),
      );
      return {
        name,
        mock,
        entry: {
          kind: 'acp',
          command: [bin('claude-agent-acp')],
          cwd: workspace,
          env: {
            ...base,
            CLAUDE_CONFIG_DIR: config,
            ANTHROPIC_BASE_URL: mock.url,
            ANTHROPIC_API_KEY: 'lane-key',
            // A model the CLI knows, so it sends no model-discovery or fallback requests.
            ANTHROPIC_MODEL: 'claude-sonnet-4-5',
            DISABLE_TELEMETRY: '1',
            DISABLE_AUTOUPDATER: '1',
            DISABLE_ERROR_REPORTING: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          },
          ...COMMON,
        },
      };
    }
    case 'qwen': {
      const mock = await chatCompletionsServer();
      const settings = path.join(home, '.qwen');
      mkdirSync(settings, { recursive: true });
      writeFileSync(
        path.join(settings, 'settings.json'),
        JSON.stringify(
          {
            general: { disableAutoUpdate: true, disableUpdateNag: true },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
            model: { name: 'lane-model' },
          },
          null,
          2,
        ),
      );
      return {
        name,
        mock,
        entry: {
          kind: 'acp',
          // The known-agents preset's command; the auth type is the settings' `security.auth.selectedType`.
          command: [bin('qwen'), '--acp'],
          cwd: workspace,
          env: {
            ...base,
            OPENAI_BASE_URL: `${mock.url}/v1`,
            OPENAI_API_KEY: 'lane-key',
            OPENAI_MODEL: 'lane-model',
          },
          ...COMMON,
        },
      };
    }
  }
}
