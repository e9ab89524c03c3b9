import { acpFrontScenarios } from './acp-front-scenarios.js';
import { agentScenarios } from './scenarios.js';

agentScenarios('codex');
acpFrontScenarios('codex');
