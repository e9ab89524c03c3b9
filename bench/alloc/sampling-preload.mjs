/**
 * Preloaded into a server (`--import`; plain JavaScript, so the bundled server needs no loader) by bench/alloc/per-send.ts: the first SIGUSR2 starts V8's sampling
 * heap profiler with the objects minor and major GC collected included (so it counts what was allocated,
 * not what survived), the second stops it and writes the total and the bytes by function to the file
 * `BENCH_ALLOC_OUT` names.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const out = process.env.BENCH_ALLOC_OUT;
if (!out) throw new Error('BENCH_ALLOC_OUT names the file the allocation summary goes to');
const session = new Session();
session.connect();
let sampling = false;

process.on('SIGUSR2', () => {
  void (async () => {
    if (!sampling) {
      sampling = true;
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 512,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      writeFileSync(`${out}.started`, '');
      return;
    }
    sampling = false;
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const byFunction = new Map();
    let total = 0;
    // BENCH_ALLOC_CALLERS=<function>: that function's bytes are counted under "<function> < <its caller>".
    const callersOf = process.env.BENCH_ALLOC_CALLERS;
    const walk = (node, caller) => {
      const { functionName, url, lineNumber } = node.callFrame;
      let name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
      const own = name;
      if (callersOf && functionName === callersOf) name = `${name} < ${caller}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
      total += node.selfSize;
      for (const child of node.children) walk(child, own);
    };
    walk(profile.head, '');
    const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 200);
    writeFileSync(out, JSON.stringify({ total, top }));
  })();
});
