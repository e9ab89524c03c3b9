/**
 * Debian's Chromium, driven by playwright-core (never a browser download). The flags keep it from
 * reaching for the network, which this machine refuses, many connections at a time.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CONTACTOR_CHROMIUM ?? '/usr/bin/chromium';

export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

/**
 * Whether the browser tests named `what` must be skipped: without Chromium they are, with a message — except
 * with CI=true, where a missing browser fails the run (as the Windows lane does, tests/windows-lane/run.mjs):
 * CI installs Chromium (.ci/run), so its absence there is a broken setup, never a pass.
 */
export function skipWithoutChromium(
  what: string,
  at: string = CHROMIUM,
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (existsSync(at)) return false;
  if (env.CI === 'true')
    throw new Error(
      `${what}: no Chromium at ${at}, and with CI=true browser tests never pass by skipping (apt-get install -y chromium)`,
    );
  console.warn(`skipping ${what}: no Chromium at ${at} (apt-get install -y chromium; with CI=true this fails)`);
  return true;
}

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}
