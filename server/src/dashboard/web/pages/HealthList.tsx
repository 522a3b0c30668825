// Overview and new-project stage: a project's services' health as the API measured it.
import type { ServiceHealth } from "../api/types";

const names: Record<string, string> = {
  db: "Database (a query on the read-only login)",
  rest: "GraphQL data API (a request through its pool)",
  db_postgres_user: "Owner login (may log in)",
};

export function HealthList({ health }: { health: ServiceHealth[] }) {
  return (
    <ul className="health">
      {health.map((s) => (
        <li key={s.name} className={s.healthy ? "healthy" : "unhealthy"}>
          <span className={`badge ${s.healthy ? "badge-ok" : "badge-bad"}`}>{s.healthy ? "healthy" : s.status}</span> {names[s.name] ?? s.name}
          {s.error ? `: ${s.error}` : ""}
        </li>
      ))}
    </ul>
  );
}
