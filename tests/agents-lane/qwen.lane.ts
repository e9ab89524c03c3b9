import { acpFrontScenarios } from './acp-front-scenarios.js';
import { agentScenarios } from './scenarios.js';

agentScenarios('qwen');
// No mcpScenarios: Qwen Code 0.24.4 accepts the offered contactor server in session/new yet never shows its
// tools to its model (no contactor tool among its tools, in its deferred-tools list or anywhere in the requests).
acpFrontScenarios('qwen');
