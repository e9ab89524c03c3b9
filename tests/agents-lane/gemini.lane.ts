import { acpFrontScenarios } from './acp-front-scenarios.js';
import { mcpScenarios } from './mcp-scenarios.js';
import { agentScenarios } from './scenarios.js';

agentScenarios('gemini');
mcpScenarios('gemini');
acpFrontScenarios('gemini');
