/**
 * The README and the config file `up` writes (resources/config.example.yaml) name the same Windows config
 * path, the one the code uses (config/config.ts defaultConfigPath). The example said %APPDATA%\contactor,
 * the place it moved from.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfigPath } from '../../main/config/config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const WINDOWS = '%USERPROFILE%\\.contactor\\config.yaml';

describe('where the config lives on Windows', () => {
  it('is the same in the code, the README and the generated config', () => {
    expect(defaultConfigPath({ USERPROFILE: '%USERPROFILE%' }, 'win32')).toBe(WINDOWS);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const configuration = readme.slice(readme.indexOf('\n## Configuration\n')).split('\n\n')[1]!;
    expect(configuration.startsWith(`\`${WINDOWS}\` on Windows`)).toBe(true);
    const example = readFileSync(join(ROOT, 'resources', 'config.example.yaml'), 'utf8');
    expect(/^# Location: (\S+) on Windows/m.exec(example)?.[1]).toBe(WINDOWS);
  });
});
