/**
 * Code signing is a configuration away: with a certificate in the environment (WIN_CSC_LINK, WIN_CSC_KEY_PASSWORD)
 * electron-builder signs Contactor.exe and the CLI launcher resources/cli/contactor.exe; without one it signs
 * nothing and says so. A real `electron-builder --win --x64 --dir` of the shipped config (stub Electron,
 * tests/packaging/stub-dir-build.ts) with exe editing on, as a release build has it.
 *
 * "Signed" is observed through electron-builder's own hook, `win.signtoolOptions.sign`: a module it calls once per
 * file and hash in place of signtool (app-builder-lib out/codeSign/windowsSignToolManager.js signFile, which
 * passes the certificate it resolved from WIN_CSC_LINK as `cscInfo`). Here it records what it is asked to sign.
 * Without that hook and without a certificate, signFile logs "no code signing certificate configured, signing is
 * skipped" and returns. The installer and uninstaller go through the same WinPackager.signIf (NsisTarget.js);
 * building them needs NSIS from GitHub, so the Windows workflow checks their signatures when a certificate is set.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildStubDirLayoutLogged, ROOT, STUB_EXE } from './stub-dir-build.js';

const LAUNCHER = path.join(ROOT, 'out', 'launcher', 'contactor.exe');
const SIGN_HOOK = `const fs = require('node:fs');
module.exports = async function sign(configuration) {
  const record = { path: configuration.path, certificate: configuration.cscInfo ? configuration.cscInfo.file : null, hash: configuration.hash };
  fs.appendFileSync(process.env.CONTACTOR_SIGN_RECORD, JSON.stringify(record) + '\\n');
};
`;

interface Signed {
  path: string;
  certificate: string | null;
  hash: string;
}

describe.skipIf(!existsSync(STUB_EXE) || !existsSync(LAUNCHER))('code signing of a Windows build', () => {
  let tmp: string;
  let certificate: string;
  let signed: { unpacked: string; records: Signed[] };
  let unsigned: { unpacked: string; log: string };

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'contactor-sign-'));
    // Only its existence is checked before the hook gets it (codesign.js importCertificate): no real key needed.
    certificate = path.join(tmp, 'release-cert.p12');
    writeFileSync(certificate, 'not a real certificate');
    const hook = path.join(tmp, 'record-sign.cjs');
    writeFileSync(hook, SIGN_HOOK);
    const record = path.join(tmp, 'signed.jsonl');
    for (const dir of ['with', 'without']) mkdirSync(path.join(tmp, dir));
    const noCertificate = { CSC_LINK: undefined, CSC_KEY_PASSWORD: undefined, WIN_CSC_LINK: undefined };
    const [withCert, withoutCert] = await Promise.all([
      buildStubDirLayoutLogged(path.join(tmp, 'with'), {
        editExecutable: true,
        configure: (config) => {
          config.win.signtoolOptions = { ...(config.win.signtoolOptions as object), sign: hook };
        },
        env: {
          ...noCertificate,
          WIN_CSC_LINK: certificate,
          WIN_CSC_KEY_PASSWORD: 'secret',
          CONTACTOR_SIGN_RECORD: record,
        },
      }),
      buildStubDirLayoutLogged(path.join(tmp, 'without'), {
        editExecutable: true,
        // builder-util out/log.js drops every non-error line when VITEST is set (shouldDisableNonErrorLoggingVitest).
        env: { ...noCertificate, VITEST: undefined },
      }),
    ]);
    const records = existsSync(record)
      ? readFileSync(record, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Signed)
      : [];
    signed = { unpacked: withCert.unpacked, records };
    // electron-builder's log is coloured when the test runner forces colour.
    unsigned = { ...withoutCert, log: stripVTControlCharacters(withoutCert.log) };
  }, 300_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('with a certificate: signs the app and the CLI launcher, with that certificate, SHA-256 only', () => {
    const asked = signed.records
      .map((r) => ({ ...r, path: path.relative(signed.unpacked, r.path).replaceAll('\\', '/') }))
      .sort((a, b) => a.path.localeCompare(b.path));
    expect(asked).toEqual([
      { path: 'Contactor.exe', certificate, hash: 'sha256' },
      { path: 'resources/cli/contactor.exe', certificate, hash: 'sha256' },
    ]);
  });

  it('without a certificate: signs nothing, says so for each exe, and ships the launcher as built', () => {
    const skipped = [
      ...unsigned.log.matchAll(/no code signing certificate configured, signing is skipped\s+path=(\S+)/g),
    ]
      .map((m) => path.relative(unsigned.unpacked, m[1]!).replaceAll('\\', '/'))
      .sort();
    expect(skipped).toEqual(['Contactor.exe', 'resources/cli/contactor.exe']);
    expect(unsigned.log).not.toMatch(/•\s+signing\s+file=/);
    expect(readFileSync(path.join(unsigned.unpacked, 'resources/cli/contactor.exe'))).toEqual(readFileSync(LAUNCHER));
  });
});

describe('electron-builder.yml signing settings', () => {
  const config = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as {
    win: Record<string, unknown>;
    cscLink?: unknown;
  };
  it('takes the certificate from the environment only, and leaves signing of every .exe on', () => {
    // A certificate named in the file would be a secret in the repository, or sign every developer's build.
    expect(config.cscLink).toBeUndefined();
    expect(config.win.cscLink).toBeUndefined();
    expect(config.win.signExecutable).toBeUndefined();
    expect(config.win.signAndEditExecutable).toBeUndefined();
    expect(config.win.signExts).toBeUndefined();
    expect(config.win.signtoolOptions).toEqual({ signingHashAlgorithms: ['sha256'] });
  });
});
