import { agentScenarios } from './scenarios.js';

agentScenarios('opencode');
