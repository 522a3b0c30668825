// Logs stage (pure): the query's optional ISO timestamps and the time now → the range a logs
// query reads: the last minute by default, at most 24 hours, widened to whole minutes (start
// down, end up) so the requests of the current minute are inside it.
export type RangeOutcome = { kind: "range"; starts: Date; ends: Date } | { kind: "refused"; message: string };

const minuteMs = 60_000;
const dayMs = 24 * 60 * minuteMs;

function parse(name: string, text: string | undefined): Date | string | undefined {
  if (text === undefined || text === "") return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? `${name} is not an ISO 8601 timestamp: "${text}"` : at;
}

export function logRange(startText: string | undefined, endText: string | undefined, now: number): RangeOutcome {
  const start = parse("iso_timestamp_start", startText);
  const end = parse("iso_timestamp_end", endText);
  if (typeof start === "string") return { kind: "refused", message: start };
  if (typeof end === "string") return { kind: "refused", message: end };
  const endMs = end?.getTime() ?? (start ? Math.max(now, start.getTime() + minuteMs) : now);
  const startMs = start?.getTime() ?? endMs - minuteMs;
  if (endMs < startMs) return { kind: "refused", message: "iso_timestamp_end is before iso_timestamp_start" };
  if (endMs - startMs > dayMs) {
    return { kind: "refused", message: "The range between iso_timestamp_start and iso_timestamp_end must not exceed 24 hours" };
  }
  return { kind: "range", starts: new Date(Math.floor(startMs / minuteMs) * minuteMs), ends: new Date(Math.ceil((endMs + 1) / minuteMs) * minuteMs) };
}
