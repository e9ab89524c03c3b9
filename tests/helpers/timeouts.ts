/**
 * The suite's one time budget (vitest.config.ts sets it as every test's and hook's timeout). A wait inside a
 * test is bounded by this and nothing shorter: on a loaded machine everything takes longer, and only a test
 * that is really stuck may fail for time. Measured on 2 cores at load 30 (eight test runs at once), a test of
 * a few CLI starts that takes 3 s idle took over 30 s; a passing run is not slower for a larger budget. A budget a product option takes (how long a helper program may
 * take to answer) is given this value when the test needs the answer.
 */
export const TEST_TIMEOUT_MS = 120_000;
