/**
 * The benchmark's goals (docs/benchmark.md): every one a ratio against a baseline measured in the same run. Each full
 * run yields one value per goal; the verdict is on the median of the runs, printed with all the values and their
 * spread, so one noisy run neither passes nor fails a goal on its own.
 */
import { CHUNK_IDLE_MS } from '../../main/runtime/artifact-stream.js';
import { median } from './stats.js';

/** One run's figures, by name (see `one-run.ts`); a section that did not run leaves its names out. */
export type Figures = Record<string, number>;

export interface Goal {
  measure: string;
  /** How the ratio is shown and judged, e.g. "≥ 1.5× the reference". */
  goal: string;
  value: (f: Figures) => number | undefined;
  meets: (v: number) => boolean;
  /** How a value prints: a ratio (1.52×), a share (43%) or milliseconds (a difference of two times). */
  format: 'ratio' | 'percent' | 'ms';
}

const ratio = (f: Figures, a: string, b: string): number | undefined =>
  f[a] === undefined || f[b] === undefined ? undefined : f[a]! / f[b]!;

export const GOALS: Goal[] = [
  // One send at a time: no grouping shares a commit, so each send is two durable commits in a row.
  {
    measure: 'blocking sends, c=1, vs the @a2a-js/sdk reference',
    goal: '≥ 1.0×',
    value: (f) => ratio(f, 'tp.c1.contactor', 'tp.c1.reference'),
    meets: (v) => v >= 1.0,
    format: 'ratio',
  },
  // Blocking sends: against the durable ceiling (the leanest server doing the product's durable work,
  // docs/benchmark.md#the-durable-ceiling) and against the reference.
  ...[
    { c: 8, vsReference: 1.0 },
    { c: 32, vsReference: 1.5 },
  ].flatMap(({ c, vsReference }): Goal[] => [
    {
      measure: `blocking sends, c=${c}, share of the durable ceiling`,
      goal: '≥ 90%',
      value: (f) => ratio(f, `tp.c${c}.contactor`, `tp.c${c}.ceiling`),
      meets: (v) => v >= 0.9,
      format: 'percent',
    },
    {
      measure: `blocking sends, c=${c}, vs the @a2a-js/sdk reference`,
      goal: `≥ ${vsReference.toFixed(1)}×`,
      value: (f) => ratio(f, `tp.c${c}.contactor`, `tp.c${c}.reference`),
      meets: (v) => v >= vsReference,
      format: 'ratio',
    },
  ]),
  {
    measure: '10 MB reply through SSE, share of the direct rate',
    goal: '≥ 50%',
    value: (f) => ratio(f, 'bulk.bridgeMBps', 'bulk.directMBps'),
    meets: (v) => v >= 0.5,
    format: 'percent',
  },
  {
    measure: 'SSE 512-char chunk latency p99, vs direct',
    goal: '≤ 3×',
    value: (f) => ratio(f, 'sse.bridgeP99Ms', 'sse.directP99Ms'),
    meets: (v) => v <= 3,
    format: 'ratio',
  },
  // Small chunks wait for the batching window (runtime/artifact-stream.ts), never for 512 characters: the
  // bridge's p99 may exceed the direct path's by the window and 5 ms of relay (store commit, SSE write).
  {
    measure: `SSE 48-char chunks every 10 ms, p99 added to direct`,
    goal: `≤ ${CHUNK_IDLE_MS + 5} ms (the ${CHUNK_IDLE_MS} ms window + 5)`,
    value: (f) =>
      f['sse.smallBridgeP99Ms'] === undefined || f['sse.smallDirectP99Ms'] === undefined
        ? undefined
        : f['sse.smallBridgeP99Ms'] - f['sse.smallDirectP99Ms'],
    meets: (v) => v <= CHUNK_IDLE_MS + 5,
    format: 'ms',
  },
  {
    measure: 'tasks/get p99 at 100k tasks, vs the floor round-trip p99',
    goal: '≤ 4×',
    value: (f) => ratio(f, 'scale.getP99Ms', 'scale.getRttP99Ms'),
    meets: (v) => v <= 4,
    format: 'ratio',
  },
  {
    measure: 'ListTasks (page of 50) p99 at 100k tasks, vs the floor round-trip p99',
    goal: '≤ 10×',
    value: (f) => ratio(f, 'scale.listP99Ms', 'scale.listRttP99Ms'),
    meets: (v) => v <= 10,
    format: 'ratio',
  },
  {
    measure: 'start-up to healthy with 100k tasks, vs bare node:http start-up',
    goal: '≤ 3×',
    value: (f) => ratio(f, 'scale.startupMs', 'scale.floorStartupMs'),
    meets: (v) => v <= 3,
    format: 'ratio',
  },
  {
    measure: 'idle RSS, headless, vs bare node:http',
    goal: '≤ 1.7×',
    value: (f) => ratio(f, 'scale.idleRssMb', 'scale.floorIdleRssMb'),
    meets: (v) => v <= 1.7,
    format: 'ratio',
  },
  // Flat over a long run (bench/sections/soak.ts): the end of the soak against its first point.
  ...(
    [
      ['RSS', 'Rss'],
      ['heap used', 'Heap'],
    ] as const
  ).map(([what, key]): Goal => ({
    measure: `soak: ${what} after a full GC, at the end vs after a tenth of the tasks`,
    goal: '≤ 1.10×',
    value: (f) => ratio(f, `soak.end${key}Mb`, `soak.early${key}Mb`),
    meets: (v) => v <= 1.1,
    format: 'ratio',
  })),
  {
    measure: 'soak: database size at the end vs after a tenth of the tasks (pruned to history.max_tasks)',
    goal: '≤ 1.10×',
    value: (f) => ratio(f, 'soak.endDatabaseMb', 'soak.earlyDatabaseMb'),
    meets: (v) => v <= 1.1,
    format: 'ratio',
  },
  // CLI start-up, already ratios.
  {
    measure: 'contactor --version, vs node -e 0',
    goal: '≤ 3×',
    value: (f) => ratio(f, 'cli.versionMs', 'cli.bareMs'),
    meets: (v) => v <= 3,
    format: 'ratio',
  },
  {
    measure: 'contactor agents (bridge running), vs node -e 0',
    goal: '≤ 5×',
    value: (f) => ratio(f, 'cli.agentsMs', 'cli.bareMs'),
    meets: (v) => v <= 5,
    format: 'ratio',
  },
];

export interface GoalVerdict {
  measure: string;
  goal: string;
  values: number[];
  median: number;
  /** max − min of the values. */
  spread: number;
  pass: boolean;
  format: Goal['format'];
}

/** The verdict per goal over every run that measured it; goals no run measured are left out. */
export function judge(runs: Figures[]): GoalVerdict[] {
  return GOALS.flatMap((g) => {
    const values = runs.map(g.value).filter((v): v is number => v !== undefined && Number.isFinite(v));
    if (values.length === 0) return [];
    const mid = median(values);
    return [
      {
        measure: g.measure,
        goal: g.goal,
        values,
        median: mid,
        spread: Math.max(...values) - Math.min(...values),
        pass: g.meets(mid),
        format: g.format,
      },
    ];
  });
}

export function show(v: number, format: Goal['format']): string {
  if (format === 'ms') return `${v.toFixed(1)} ms`;
  return format === 'percent' ? `${(v * 100).toFixed(0)}%` : `${v.toFixed(2)}×`;
}

/** Rows for the text/Markdown table: the values of each run, their median and spread, the verdict. */
export function verdictCells(verdicts: GoalVerdict[]): { headers: string[]; rows: string[][] } {
  const runs = Math.max(0, ...verdicts.map((v) => v.values.length));
  const headers = [
    'goal (same-run ratio)',
    ...Array.from({ length: runs }, (_, i) => `run ${i + 1}`),
    'median',
    'spread',
    'target',
    'result',
  ];
  const rows = verdicts.map((v) => [
    v.measure,
    ...Array.from({ length: runs }, (_, i) => (v.values[i] === undefined ? '' : show(v.values[i]!, v.format))),
    show(v.median, v.format),
    show(v.spread, v.format),
    v.goal,
    v.pass ? 'PASS' : 'MISS',
  ]);
  return { headers, rows };
}
