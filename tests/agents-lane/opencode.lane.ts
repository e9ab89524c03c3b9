import { acpFrontScenarios } from './acp-front-scenarios.js';
import { mcpScenarios } from './mcp-scenarios.js';
import { agentScenarios } from './scenarios.js';

agentScenarios('opencode');
mcpScenarios('opencode');
acpFrontScenarios('opencode');
