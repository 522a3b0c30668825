// Bench stage: a process's CPU time. Input: a process id; output: its user + system CPU time in
// milliseconds, from /proc/PID/stat at clock ticks of 10 ms.
import { readFileSync } from "node:fs";

export function processCpuMs(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name is in parentheses and may hold spaces: fields count from after it.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
