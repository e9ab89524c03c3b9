import { acpFrontScenarios } from './acp-front-scenarios.js';
import { agentScenarios } from './scenarios.js';

agentScenarios('gemini');
acpFrontScenarios('gemini');
