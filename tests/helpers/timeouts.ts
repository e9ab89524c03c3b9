/**
 * The suite's one time budget (vitest.config.ts sets it as every test's and hook's timeout). A wait inside a
 * test is bounded by this and nothing shorter: on a loaded machine everything takes longer, and only a test
 * that is really stuck may fail for time. A budget a product option takes (how long a helper program may
 * take to answer) is given this value when the test needs the answer.
 */
export const TEST_TIMEOUT_MS = 30_000;
