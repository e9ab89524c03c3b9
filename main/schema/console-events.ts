/**
 * CONTACTOR_CONSOLE_EVENTS, which the Windows launcher (build/launcher/contactor.c) gives the CLI: the name of
 * its console events pipe, `\\.\pipe\contactor-console-<pid>-<32 hex>`; elsewhere (the Linux tests, which
 * stand in for the launcher) a socket path ending in that name. Anything else is not the launcher's.
 */
import { z } from 'zod';

export const ConsoleEventsPipeSchema = z
  .string()
  .regex(/^(\\\\\.\\pipe\\|\/.*\/)contactor-console-\d+-[0-9a-f]{32}$/, 'not a contactor launcher pipe');
