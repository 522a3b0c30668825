// Bench stage: CPU time. Input: a process id, or nothing for the whole machine; output: user +
// system CPU time in milliseconds, from /proc at clock ticks of 10 ms.
import { readFileSync } from "node:fs";

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
