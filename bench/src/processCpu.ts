// Bench stage: CPU time. Input: a process id, or nothing for the whole machine; output: user +
// system CPU time in milliseconds, from /proc at clock ticks of 10 ms.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClusterInfo } from "../../test/harness/cluster";
import { pgbenchRun, type Bounds, type PgTarget, type RunFigures } from "./load";

/** A cluster's postmaster (the first line of its postmaster.pid). */
export function postmasterPid(c: Pick<ClusterInfo, "dataDir">): number {
  return Number(readFileSync(join(c.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

export function processCpuMs(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name is in parentheses and may hold spaces: fields count from after it.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time of the process's children that have ended and been waited for (a postmaster's
 * backends once they exit). */
export function endedChildrenCpuMs(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** The process's live children. */
export function childPids(pid: number): Set<number> {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return new Set(text === "" ? [] : text.split(" ").map(Number));
}

/** CPU time of every process a postmaster has started, those that have ended and those still
 * running: a total that only grows, so two readings bound what the cluster spent between them. */
export function clusterCpuMs(postmaster: number): number {
  let total = endedChildrenCpuMs(postmaster);
  for (const child of childPids(postmaster)) {
    try {
      total += processCpuMs(child);
    } catch {
      // ended since the list was read: left out of this reading (a few ms of a short-lived worker)
    }
  }
  return total;
}

/**
 * A pgbench run, and with `postmaster` (its pid: pgbench's backends end with each run) the CPU
 * time its backends took per transaction, the warm-up and each client's first included; none
 * when they had not all ended within awaitChildrenEnded's bound.
 */
export function pgbenchRunWithCpu(target: PgTarget, script: string, clients: number, bounds: Bounds, workDir: string, postmaster?: number): { run: RunFigures; cpuMsPerRequest?: number } {
  const children = postmaster === undefined ? new Set<number>() : childPids(postmaster);
  const start = postmaster === undefined ? 0 : endedChildrenCpuMs(postmaster);
  const run = pgbenchRun(target, script, clients, bounds, workDir);
  if (postmaster === undefined || !awaitChildrenEnded(postmaster, children)) return { run };
  return { run, cpuMsPerRequest: (endedChildrenCpuMs(postmaster) - start) / (run.transactions ?? run.requests + clients) };
}

/**
 * Waits (at most `limitMs`) until every child of `pid` not in `before` has ended and been waited
 * for: a backend's CPU time reaches endedChildrenCpuMs only then, some milliseconds after its
 * client has gone. True when they all have.
 */
export function awaitChildrenEnded(pid: number, before: Set<number>, limitMs = 10_000): boolean {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const start = Date.now(); ; Atomics.wait(pause, 0, 0, 20)) {
    if ([...childPids(pid)].every((c) => before.has(c))) return true;
    if (Date.now() - start > limitMs) return false;
  }
}

/**
 * The CPU time every core of the machine has spent on something other than waiting (user, nice,
 * system, interrupts, steal), summed: the cost of a run to every process taking part in it.
 */
export function machineCpuMs(): number {
  const first = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  // cpu user nice system idle iowait irq softirq steal ...
  const [user, nice, system, , , irq, softirq, steal] = first.trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * 10;
}
