// Widget: a project's or branch's status as the API names it, with a plain-words title.
const words: Record<string, string> = {
  ACTIVE_HEALTHY: "active",
  COMING_UP: "being made",
  INACTIVE: "paused",
  GOING_DOWN: "being removed",
  RESTORING: "restoring",
  PAUSING: "pausing",
  MIGRATIONS_PASSED: "ready",
  MIGRATIONS_FAILED: "migrations failed",
};

export function StatusBadge({ status }: { status: string }) {
  const kind = status === "ACTIVE_HEALTHY" || status === "MIGRATIONS_PASSED" ? "ok" : status === "INACTIVE" ? "idle" : /FAIL|UNHEALTHY/.test(status) ? "bad" : "busy";
  return (
    <span className={`badge badge-${kind}`} title={words[status] ?? status}>
      {status}
    </span>
  );
}
