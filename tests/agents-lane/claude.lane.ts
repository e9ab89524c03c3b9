import { agentScenarios } from './scenarios.js';

agentScenarios('claude');
