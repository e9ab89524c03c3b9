/**
 * Reads the WAL a run left behind without closing (kill -9, crash) BEFORE SQLite opens the database,
 * to find what SQLite's own recovery would drop without a word:
 * - frames whose checksum fails: recovery stops at the first one and ignores every frame after it, so a
 *   damaged frame silently removes each transaction committed after it;
 * - every frame, when the database file is empty: SQLite then deletes the WAL and starts empty.
 *
 * Read with plain fs, and only before this process's SQLite opens the database: closing any fd on a
 * database file drops every POSIX lock the process holds on it (sqlite.org/howtocorrupt.html §2.2).
 * SQLite locks the database and -shm files, never the WAL, so this read could not drop one anyway.
 *
 * Format: sqlite.org/fileformat2.html §4 — a 32-byte header (magic, version, page size, checkpoint seq,
 * salt-1, salt-2, checksum-1, checksum-2), then frames of a 24-byte header (page number, database size
 * after commit or 0, salt-1, salt-2, checksum-1, checksum-2) and one page. Checksums are cumulative:
 * each frame's covers its first 8 header bytes and its page, starting from the previous frame's.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface WalReport {
  /** Transactions SQLite will replay. */
  commits: number;
  /** Committed transactions after a damaged frame: what SQLite's recovery would drop. */
  lostCommits: number;
  /** Where recovery stops (1-based frame; 0: the header) when a committed transaction follows. */
  damagedFrame?: number;
}

const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;
const VERSION = 3007000;
const HEADER = 32;
const FRAME_HEADER = 24;

/** What replaying `walFile` would keep and drop; no commits when it is missing, empty or not a WAL. */
export function readWal(walFile: string): WalReport {
  let fd: number;
  try {
    fd = openSync(walFile, 'r');
  } catch {
    return { commits: 0, lostCommits: 0 };
  }
  try {
    return scan(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

function scan(fd: number, size: number): WalReport {
  const none = { commits: 0, lostCommits: 0 };
  const header = Buffer.alloc(HEADER);
  if (size < HEADER || readSync(fd, header, 0, HEADER, 0) !== HEADER) return none;
  const magic = header.readUInt32BE(0);
  const pageSize = header.readUInt32BE(8) === 1 ? 65536 : header.readUInt32BE(8);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) return none;
  if (header.readUInt32BE(4) !== VERSION || pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return none;
  }
  const bigEndian = magic === MAGIC_BIG_ENDIAN;
  const stored = [header.readUInt32BE(24), header.readUInt32BE(28)] as const;
  // A header that fails its own checksum makes SQLite ignore the whole WAL: every commit in it is lost.
  const headerValid = sameSum(checksum(header.subarray(0, 24), bigEndian, [0, 0]), stored);

  const frame = Buffer.alloc(FRAME_HEADER + pageSize);
  const frames = Math.floor((size - HEADER) / frame.length);
  // The salts mark this WAL's generation: older frames further on carry other ones. Beside a damaged
  // header they are read from frame 1, the first frame every generation writes.
  const saltAt = headerValid ? 16 : HEADER + 8;
  const saltBytes = Buffer.alloc(8);
  if (frames === 0 || readSync(fd, saltBytes, 0, 8, saltAt) !== 8) return none;
  const salt = [saltBytes.readUInt32BE(0), saltBytes.readUInt32BE(4)] as const;
  let commits = 0;
  let lostCommits = 0;
  /** Where recovery stops: the first frame it rejects; 0 when it rejects the header itself. */
  let stop: number | undefined = headerValid ? undefined : 0;
  /** The running checksum along the frames recovery accepts. */
  let running: readonly [number, number] = stored;
  /** The checksum stored in the previous frame: how a frame after a damaged one is checked on its own. */
  let previous: readonly [number, number] = stored;
  for (let i = 1; i <= frames; i++) {
    if (readSync(fd, frame, 0, frame.length, HEADER + (i - 1) * frame.length) !== frame.length) break;
    const ownSum = [frame.readUInt32BE(16), frame.readUInt32BE(20)] as const;
    const ours = frame.readUInt32BE(8) === salt[0] && frame.readUInt32BE(12) === salt[1] && frame.readUInt32BE(0) !== 0;
    const commit = frame.readUInt32BE(4) !== 0;
    if (stop === undefined) {
      running = frameSum(frame, bigEndian, running);
      if (ours && sameSum(running, ownSum)) {
        if (commit) commits += 1;
      } else {
        // The normal end (a frame of an older generation, an unfinished last write) or damage: which
        // one shows only if a committed transaction follows.
        stop = i;
      }
    } else if (ours && commit && sameSum(frameSum(frame, bigEndian, previous), ownSum)) {
      // Intact and of this WAL's generation (an older one's frames carry other salts): committed, and
      // recovery will not reach it.
      lostCommits += 1;
    }
    previous = ownSum;
  }
  return { commits, lostCommits, ...(lostCommits > 0 ? { damagedFrame: stop ?? 0 } : {}) };
}

function frameSum(frame: Buffer, bigEndian: boolean, start: readonly [number, number]): [number, number] {
  return checksum(frame.subarray(FRAME_HEADER), bigEndian, checksum(frame.subarray(0, 8), bigEndian, start));
}

/** SQLite's WAL checksum (wal.c, walChecksumBytes): 32-bit words, in the byte order the magic names. */
function checksum(data: Buffer, bigEndian: boolean, start: readonly [number, number]): [number, number] {
  const words = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const littleEndian = !bigEndian;
  let s1 = start[0];
  let s2 = start[1];
  for (let i = 0; i < data.length; i += 8) {
    s1 = (s1 + words.getUint32(i, littleEndian) + s2) >>> 0;
    s2 = (s2 + words.getUint32(i + 4, littleEndian) + s1) >>> 0;
  }
  return [s1, s2];
}

function sameSum(a: readonly [number, number], b: readonly [number, number]): boolean {
  return a[0] === b[0] && a[1] === b[1];
}
