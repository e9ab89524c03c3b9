/**
 * The official v0.3 conformance kit (a2aproject/a2a-tck, branch 0.3.x) run against the bridge's root, the
 * way the kit runs: it knows only the address, reads the root card and sends there without naming an
 * agent (docs/contract.md#the-default-agent). Opt-in, since the kit is Python and not a dependency: set
 * CONTACTOR_A2A_TCK to a checkout of that branch, and CONTACTOR_TCK_PYTHON to a Python with its packages
 * (default /usr/bin/python3; on Debian: apt-get install python3-pytest python3-pytest-asyncio python3-httpx
 * python3-requests python3-responses python3-deepdiff python3-jsonschema python3-dotenv python3-grpcio
 * python3-protobuf). The kit sends no bearer token, so this bridge runs with require_token: false.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

const KIT = process.env.CONTACTOR_A2A_TCK;
const PYTHON = process.env.CONTACTOR_TCK_PYTHON ?? '/usr/bin/python3';

/**
 * The kit's mandatory tests that a root without an agent fails ("no agent chosen") and the root with a
 * default agent passes, by file and function in the kit (run_tck.py `--category mandatory`).
 */
const ROOT_TESTS = [
  'tests/mandatory/protocol/test_message_send_method.py::test_message_send_valid_text',
  'tests/mandatory/protocol/test_tasks_get_method.py::test_tasks_get_valid',
  'tests/mandatory/protocol/test_tasks_get_method.py::test_tasks_get_with_history_length',
  'tests/mandatory/jsonrpc/test_protocol_violations.py::test_duplicate_request_ids',
];

interface KitRun {
  passed: string[];
  failed: string[];
}

/** The kit's mandatory tests (the markers run_tck.py uses) against `url`, each test's outcome. */
function runKit(url: string): Promise<KitRun> {
  const args = [
    '-m',
    'pytest',
    'tests/mandatory/',
    '-m',
    'mandatory_jsonrpc or mandatory_protocol',
    `--sut-url=${url}`,
    '-q',
    '-rA',
    '-p',
    'no:cacheprovider',
  ];
  return new Promise((resolve, reject) => {
    execFile(PYTHON, args, { cwd: KIT, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      // pytest exits 1 when a test fails: that is an outcome, not an error.
      if (err && typeof err.code !== 'number') return reject(err);
      const outcome = (word: string) =>
        [...stdout.matchAll(new RegExp(`^${word} (\\S+)`, 'gm'))].map((m) => m[1]!).sort();
      resolve({ passed: outcome('PASSED'), failed: [...outcome('FAILED'), ...outcome('ERROR')].sort() });
    });
  });
}

describe.skipIf(!KIT)('a2a-tck 0.3.x mandatory tests at the root (CONTACTOR_A2A_TCK)', () => {
  let tb: TestBridge;
  beforeAll(async () => {
    tb = await startTestBridge({
      agents: { alpha: echoAgent(), beta: echoAgent() },
      config: { require_token: false, default_agent: 'beta' },
    });
  });
  afterAll(async () => {
    await tb.cleanup();
  });

  it(
    'the root with default_agent passes what the agent passes at its own endpoint, the root tests among them',
    async () => {
      const root = await runKit(`${tb.url}/`);
      const agent = await runKit(`${tb.url}/agents/beta`);
      expect(root.passed).toEqual(expect.arrayContaining(ROOT_TESTS));
      expect(root.failed).toEqual(agent.failed);
      expect(root.passed).toEqual(agent.passed);
    },
    TEST_TIMEOUT_MS,
  );
});
