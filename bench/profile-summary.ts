/**
 * Reads a .cpuprofile (node --cpu-prof) and prints where the time went: self time by function and by
 * file (node_modules folded by package). Usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--callers');
if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [top]');
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const where = (url: string): string => {
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `pkg:${nm[1]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\/.*?\/(main|bench)\//, '$1/') || '(native)';
};
const fnKey = (n: ProfileNode): string =>
  `${n.callFrame.functionName || '(anon)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const byFn = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  add(byFn, fnKey(n), us);
  add(byFile, where(n.callFrame.url), us);
}
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (total ${(total / 1000).toFixed(0)} ms)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
  }
};
print('self time by file', byFile);
print('self time by function', byFn);

// `--callers <function name>`: who calls it, by self time spent under that call path (3 frames up).
const callersOf = process.argv.indexOf('--callers');
if (callersOf > 0) {
  const target = process.argv[callersOf + 1]!;
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const paths = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName !== target) continue;
    const chain: string[] = [];
    for (let p = parent.get(id); p !== undefined && chain.length < 6; p = parent.get(p))
      chain.push(fnKey(byId.get(p)!));
    add(paths, chain.join(' < '), us);
  }
  print(`callers of ${target}`, paths);
}

// `--inclusive`: total time under each function (its own and its callees'), counted once per sample.
if (process.argv.includes('--inclusive')) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let p: number | undefined = id; p !== undefined; p = parent.get(p)) {
      const key = fnKey(byId.get(p)!);
      if (!seen.has(key)) add(inclusive, key, us);
      seen.add(key);
    }
  }
  print('inclusive time by function', inclusive);
}
