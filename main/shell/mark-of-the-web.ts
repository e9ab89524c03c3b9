/**
 * Writing a file an agent produced to where the person chose, with the Mark of the Web on Windows: the
 * `Zone.Identifier` alternate data stream browsers write for a download, so SmartScreen, Office's Protected View
 * and PowerShell's execution policy treat the file as coming from the Internet, not as made on this machine.
 *
 * The form and the way it is written are Chromium's (components/services/quarantine/quarantine_win.cc
 * `SetInternetZoneIdentifierDirectly`): open `<file>:Zone.Identifier` (an NTFS stream of that file; OPEN_ALWAYS)
 * and write `[ZoneTransfer]\r\nZoneId=3\r\n` (3 = URLZONE_INTERNET). There is no URL to add (`HostUrl`,
 * `ReferrerUrl`): the bytes came from an agent. Chromium notes the write fails where a volume keeps no streams
 * (FAT32, exFAT, some network shares) and keeps the download anyway; here the file is removed again and the save
 * refused, so no unmarked agent file is left behind.
 * SECURITY.md "What the desktop app saves and answers with one click".
 */
import { rmSync, writeFileSync } from 'node:fs';

export const ZONE_IDENTIFIER_STREAM = ':Zone.Identifier';
/** URLZONE_INTERNET, exactly as Chromium writes it (no trailing NUL). */
export const INTERNET_ZONE_IDENTIFIER = '[ZoneTransfer]\r\nZoneId=3\r\n';

/** Writes `data` to `file`, then (on Windows) its mark; throws, leaving no file, when the mark cannot be written. */
export function writeMarkedFile(file: string, data: Uint8Array, platform: NodeJS.Platform): void {
  writeFileSync(file, data);
  if (platform !== 'win32') return;
  try {
    writeFileSync(`${file}${ZONE_IDENTIFIER_STREAM}`, INTERNET_ZONE_IDENTIFIER);
  } catch (err) {
    rmSync(file, { force: true });
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(
      `not saved: Windows could not mark ${file} as downloaded (${reason}); this drive probably keeps no NTFS ` +
        'streams (a FAT32 or exFAT stick, some network shares): save it to a folder on your system drive',
      { cause: err },
    );
  }
}
