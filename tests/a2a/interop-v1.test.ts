import { interopSuite } from './interop-suite.js';

interopSuite('v1');
