/**
 * Debian's Chromium, driven by playwright-core (never a browser download). The flags keep it from
 * reaching for the network, which this machine refuses, many connections at a time.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { skipWithoutTool } from './required-tool.js';

export const CHROMIUM = process.env.CONTACTOR_CHROMIUM ?? '/usr/bin/chromium';

export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

/**
 * Whether the browser tests named `what` must be skipped: without Chromium they are, with a message — except
 * with CI=true, where a missing browser fails the run (required-tool.ts).
 */
export function skipWithoutChromium(
  what: string,
  at: string = CHROMIUM,
  env: Record<string, string | undefined> = process.env,
): boolean {
  return skipWithoutTool(
    { name: 'Chromium', at, install: 'apt-get install -y chromium', tests: 'browser tests' },
    what,
    env,
  );
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
