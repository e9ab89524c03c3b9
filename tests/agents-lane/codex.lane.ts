import { agentScenarios } from './scenarios.js';

agentScenarios('codex');
