import { interopSuite } from './interop-suite.js';

interopSuite('v0.3');
