/** The hostile agents the attack tests run (tests/fixtures/security), each a real child process. */
import path from 'node:path';
import { nodeScriptAgent, REPO_ROOT } from '../helpers/bridge.js';

export const SECURITY_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'security');

/**
 * A subprocess_cli agent running `node <file>` (relative to tests/fixtures/security unless absolute),
 * without the decision contract so a fixture sees exactly the text a test sent.
 */
export function nodeFixture(file: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return nodeScriptAgent(path.resolve(SECURITY_FIXTURES, file), { append_decision_contract: false, ...extra });
}
