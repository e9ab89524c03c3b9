import { agentScenarios } from './scenarios.js';

agentScenarios('qwen');
