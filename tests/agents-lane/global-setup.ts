/** Builds the bundle `contactor serve` runs (bin/contactor.js) once, as the main suite's setup does. */
export { default } from '../global-setup.js';
