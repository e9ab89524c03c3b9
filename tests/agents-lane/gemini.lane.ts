import { mcpScenarios } from './mcp-scenarios.js';
import { agentScenarios } from './scenarios.js';

agentScenarios('gemini');
// Gemini CLI also hands work to Codex, a real agent of the same bridge.
mcpScenarios('gemini', { realCallee: 'codex' });
