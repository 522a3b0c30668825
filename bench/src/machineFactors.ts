// Bench stage: what decides the figures that come out differently on machines of one size (two
// cores): the CPU's speed on fixed work (in Node and in a backend), the memory left to the page
// cache, shared_buffers against the largest big table, the backends' V8 code cache (read or
// compiled afresh) at their first call, and the load while the run went on. Input: the bench
// cluster and figures gathered by the sections. Output: a table printed with the results.
import { createHash } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import pg from "pg";

const pgClient = pg.Client;
import { median } from "./load";

/** Counters of the handler's code cache (plv8_info()) summed over the backends measured. */
export interface CodeCacheCounters {
  hits: number;
  misses: number;
  writes: number;
  rejected: number;
}

export interface MachineFactors {
  cpu: string;
  /** Fixed work, median of 5: 64 MiB through SHA-256 in Node, and a 3-million-row count in a backend. */
  nodeShaMs: number;
  backendCountMs: number;
  /** /proc/meminfo at the start of the run. */
  pageCacheMiB: number;
  availableMiB: number;
  sharedBuffersMiB: number;
  /** The load average (1 min) as each section started. */
  loadBySection: Array<[string, number]>;
  /** The machine's CPU counters as each section started (see stolenShares). */
  cpuBySection: Array<[string, CpuTicks]>;
}

/** /proc/stat's first line: ticks stolen by the hypervisor, and all ticks (idle included). */
export interface CpuTicks {
  steal: number;
  total: number;
}

export function cpuTicks(): CpuTicks {
  const first = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  const ticks = first.trim().split(/\s+/).slice(1, 9).map(Number);
  return { steal: ticks[7] ?? 0, total: ticks.reduce((a, b) => a + b, 0) };
}

/**
 * The share of the machine's CPU time the hypervisor gave to other guests during each section
 * (from its start to the next one's, the last to `end`): on a shared host every ratio of the
 * run moves with it, and a run with a few percent of it is not a quiet machine's.
 */
export function stolenShares(f: MachineFactors, end: CpuTicks): Array<[string, number]> {
  return f.cpuBySection.map(([section, at], i) => [section, stolenShare(at, f.cpuBySection[i + 1]?.[1] ?? end)]);
}

/** The share of the ticks from `from` to `to` stolen by the hypervisor (0 when none passed). */
export function stolenShare(from: CpuTicks, to: CpuTicks): number {
  const total = to.total - from.total;
  return total > 0 ? (to.steal - from.steal) / total : 0;
}

export async function measureMachine(admin: pg.Client): Promise<MachineFactors> {
  const info = readFileSync("/proc/meminfo", "utf8");
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(info)?.[1] ?? NaN);
  const cpuInfo = readFileSync("/proc/cpuinfo", "utf8");
  const cache = /^cache size\s*:\s*(.+)$/m.exec(cpuInfo)?.[1]?.trim();
  const mhz = cpus()[0]?.speed;
  const model = cpus()[0]?.model.replace(/\s+/g, " ").trim() ?? "unknown CPU";
  const chunk = Buffer.alloc(1 << 20, 7);
  const sha: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const h = createHash("sha256");
    for (let j = 0; j < 64; j++) h.update(chunk);
    h.digest();
    sha.push(performance.now() - t0);
  }
  const count: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await admin.query("select count(*) from generate_series(1, 3000000)");
    count.push(performance.now() - t0);
  }
  const { rows } = await admin.query<{ mb: string }>("select pg_size_bytes(current_setting('shared_buffers')) / 1048576 as mb");
  return {
    cpu: `${cpus().length} × ${model}${mhz ? ` at ${mhz} MHz` : ""}${cache ? `, ${cache} cache` : ""}`,
    nodeShaMs: median(sha),
    backendCountMs: median(count),
    pageCacheMiB: kib("Cached") / 1024,
    availableMiB: kib("MemAvailable") / 1024,
    sharedBuffersMiB: Number(rows[0]!.mb),
    loadBySection: [],
    cpuBySection: [],
  };
}

export function noteLoad(f: MachineFactors | undefined, section: string): void {
  f?.loadBySection.push([section, loadavg()[0] ?? NaN]);
  f?.cpuBySection.push([section, cpuTicks()]);
}

/**
 * The handler's code cache in new backends making the same first call: plv8_info() is for
 * superusers, so `probes` new superuser backends each make `firstCall` (as the API role, in its
 * own JavaScript environment, as the measured backends do) and read their counters.
 */
export async function codeCacheProbe(superuserUrl: string, firstCall: (client: pg.Client) => Promise<unknown>, probes = 3): Promise<CodeCacheCounters> {
  let sum = noCounters();
  for (let i = 0; i < probes; i++) {
    const client = new pgClient({ connectionString: superuserUrl });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query("select 1");
      await firstCall(client);
      const { rows } = await client.query<{ c: Partial<CodeCacheCounters> | null }>("select e->'code_cache' as c from jsonb_array_elements(plv8_info()) e");
      for (const { c } of rows) sum = addCounters(sum, { hits: Number(c?.hits ?? 0), misses: Number(c?.misses ?? 0), writes: Number(c?.writes ?? 0), rejected: Number(c?.rejected ?? 0) });
    } finally {
      await client.end().catch(() => {});
    }
  }
  return sum;
}

export function addCounters(a: CodeCacheCounters, b: CodeCacheCounters): CodeCacheCounters {
  return { hits: a.hits + b.hits, misses: a.misses + b.misses, writes: a.writes + b.writes, rejected: a.rejected + b.rejected };
}

export const noCounters = (): CodeCacheCounters => ({ hits: 0, misses: 0, writes: 0, rejected: 0 });

export function describeCounters(c: CodeCacheCounters): string {
  return `${c.hits} bodies read from the code cache, ${c.misses} compiled without a file, ${c.rejected} files refused, ${c.writes} written`;
}

export function renderFactors(f: MachineFactors, end: CpuTicks): string[] {
  const stolen = stolenShares(f, end);
  return [
    "### What the machine brings (for comparing runs across machines of this size)",
    "",
    "| Factor | Here |",
    "| --- | --- |",
    `| CPU | ${f.cpu} |`,
    `| fixed work in Node: 64 MiB through SHA-256, median of 5 | ${f.nodeShaMs.toFixed(1)} ms |`,
    `| fixed work in a backend: \`count(*)\` of 3 million generated rows, median of 5 | ${f.backendCountMs.toFixed(1)} ms |`,
    `| memory at the start: page cache / available | ${f.pageCacheMiB.toFixed(0)} / ${f.availableMiB.toFixed(0)} MiB |`,
    `| shared_buffers of the bench cluster | ${f.sharedBuffersMiB.toFixed(0)} MiB |`,
    `| load average (1 min) as each section started | ${f.loadBySection.map(([s, l]) => `${s} ${l.toFixed(2)}`).join(", ")} |`,
    `| CPU time taken by the hypervisor for other guests (steal), per section | ${stolen.map(([s, share]) => `${s} ${(share * 100).toFixed(1)}%`).join(", ")} |`,
    "",
  ];
}
