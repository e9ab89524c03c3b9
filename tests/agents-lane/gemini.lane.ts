import { agentScenarios } from './scenarios.js';

agentScenarios('gemini');
