import { mcpScenarios } from './mcp-scenarios.js';
import { agentScenarios } from './scenarios.js';

agentScenarios('qwen');
mcpScenarios('qwen');
