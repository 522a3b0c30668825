// Tables page (`#/project/<ref>/tables`): the project's tables, views and the like (estimated
// rows, row level security on or off, size, comment), read from the catalog on the read-only
// login, and the advisors' findings. Four calls when it opens: the project, the catalog query,
// the security and the performance advisors.
import { useMemo } from "react";
import { useProjectResource, useReadOnlyRows } from "../api/queries";
import type { Lint, Project } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { DataTable, type ColumnSpec } from "../widgets/DataTable";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { tablesSql, type TableRow } from "./tablesQuery";

const kinds: Record<string, string> = { r: "table", p: "partitioned table", v: "view", m: "materialized view", f: "foreign table" };

type TableWithFindings = TableRow & { findings: number };

function withFindings(tables: TableRow[], lints: Lint[]): TableWithFindings[] {
  return tables.map((t) => ({ ...t, findings: lints.filter((l) => l.metadata?.schema === t.schema && l.metadata?.name === t.name).length }));
}

const columns: ColumnSpec<TableWithFindings>[] = [
  { id: "schema", header: "Schema", value: (t) => t.schema },
  { id: "name", header: "Name", value: (t) => t.name },
  { id: "kind", header: "Kind", value: (t) => kinds[t.kind] ?? t.kind },
  { id: "rows", header: "Estimated rows", value: (t) => (t.estimated_rows === null ? null : Number(t.estimated_rows)), numeric: true },
  {
    id: "rls",
    header: "Row level security",
    value: (t) => (t.kind === "r" || t.kind === "p" ? (t.rls_enabled ? "on" : "off") : null),
    render: (t) => (t.kind === "r" || t.kind === "p" ? <span className={`badge ${t.rls_enabled ? "badge-ok" : "badge-bad"}`}>{t.rls_enabled ? "on" : "off"}</span> : "—"),
  },
  { id: "size", header: "Size", value: (t) => Number(t.bytes), render: (t) => t.size, numeric: true },
  { id: "findings", header: "Findings", value: (t) => t.findings, numeric: true },
  { id: "comment", header: "Comment", value: (t) => t.comment },
];

const lintColumns: ColumnSpec<Lint>[] = [
  { id: "level", header: "Level", value: (l) => l.level, render: (l) => <span className={`badge badge-${l.level === "ERROR" ? "bad" : "busy"}`}>{l.level}</span> },
  { id: "title", header: "Finding", value: (l) => l.title },
  { id: "object", header: "Object", value: (l) => (l.metadata?.name ? `${l.metadata.schema ?? ""}.${l.metadata.name}` : null) },
  { id: "detail", header: "Detail", value: (l) => l.detail },
];

export function TablesPage({ project }: { project: Project }) {
  const tables = useReadOnlyRows(project.ref, tablesSql);
  const security = useProjectResource<{ lints: Lint[] }>(project.ref, "/advisors/security");
  const performance = useProjectResource<{ lints: Lint[] }>(project.ref, "/advisors/performance");
  const lints = useMemo(() => [...(security.data?.lints ?? []), ...(performance.data?.lints ?? [])], [security.data, performance.data]);
  const rows = useMemo(() => withFindings((tables.data ?? []) as unknown as TableRow[], lints), [tables.data, lints]);
  return (
    <section>
      <PageTitle title={`${project.name} · Tables`}>Tables</PageTitle>
      {tables.isPending && <Progress label="Reading the catalog" />}
      {tables.error && <ErrorNotice error={tables.error} onRetry={() => tables.refetch()} />}
      {tables.data && (
        <DataTable caption="Tables, views and their row level security" columns={columns} rows={rows} empty="No table yet: make one on the SQL page." />
      )}
      <h2>Advisors</h2>
      <p>Checks of the project's own schemas by the security and performance advisors.</p>
      {(security.isPending || performance.isPending) && <Progress label="Running the advisors" />}
      {security.error && <ErrorNotice error={security.error} onRetry={() => security.refetch()} />}
      {performance.error && <ErrorNotice error={performance.error} onRetry={() => performance.refetch()} />}
      {security.data && performance.data && <DataTable caption="Advisors' findings" columns={lintColumns} rows={lints} empty="No findings." />}
    </section>
  );
}
