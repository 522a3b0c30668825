// Logs page (`#/project/<ref>/logs`): the project's recent requests (time, method, path, status,
// duration, role) and a chart of requests and errors per minute over a chosen range, both from
// `logs.all` SQL over edge_logs. Three calls when it opens (the project and the two queries), and
// again on each refresh or change of range; nothing polls.
import { useId, useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import type { Project } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { DataTable, type ColumnSpec } from "../widgets/DataTable";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { RequestChart } from "../widgets/RequestChart";
import { apiFilters, bucketsSql, fillBuckets, logRanges, logsPath, perBucket, recentRequestsSql, type ApiFilter, type LogRow } from "./logQueries";
import { Form } from "../widgets/Form";

const columns: ColumnSpec<LogRow>[] = [
  { id: "time", header: "Time", value: (r) => r.time, render: (r) => new Date(r.time).toLocaleString() },
  { id: "method", header: "Method", value: (r) => r.method },
  { id: "path", header: "Path", value: (r) => r.path, render: (r) => <code>{r.path}</code> },
  { id: "status", header: "Status", value: (r) => r.status, numeric: true, render: (r) => <span className={r.status !== null && r.status >= 400 ? "status-bad" : ""}>{r.status}</span> },
  { id: "duration", header: "Duration (ms)", value: (r) => r.duration_ms, numeric: true },
  { id: "role", header: "Role", value: (r) => r.role },
  { id: "api", header: "API", value: (r) => r.api },
];

export function LogsPage({ project }: { project: Project }) {
  const [rangeId, setRangeId] = useState("1h");
  const [filter, setFilter] = useState<ApiFilter>("all");
  // Each refresh asks for the range ending then; the queries share that moment.
  const [asked, setAsked] = useState(() => Date.now());
  const range = logRanges.find((r) => r.id === rangeId)!;
  const ids = { range: useId(), filter: useId() };
  const recent = useQuery({
    queryKey: ["project", project.ref, "logs", "recent", rangeId, filter, asked],
    queryFn: () => api.get<{ result: LogRow[] }>(logsPath(project.ref, recentRequestsSql(filter), range, asked)),
    staleTime: Infinity,
  });
  const counts = useQuery({
    queryKey: ["project", project.ref, "logs", "buckets", rangeId, filter, asked],
    queryFn: () => api.get<{ result: Array<{ bucket: string; requests: number; errors: number }> }>(logsPath(project.ref, bucketsSql(range, filter), range, asked)),
    staleTime: Infinity,
  });
  const buckets = useMemo(() => (counts.data ? fillBuckets(counts.data.result, range, asked) : undefined), [counts.data, range, asked]);
  return (
    <section>
      <PageTitle title={`${project.name} · Logs`}>Logs</PageTitle>
      <Form className="inline-form" label="Which requests" onSubmit={() => setAsked(Date.now())}>
        <label htmlFor={ids.range}>Range</label>
        <select id={ids.range} value={rangeId} onChange={(e) => (setRangeId(e.target.value), setAsked(Date.now()))}>
          {logRanges.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
        <label htmlFor={ids.filter}>Requests</label>
        <select id={ids.filter} value={filter} onChange={(e) => (setFilter(e.target.value as ApiFilter), setAsked(Date.now()))}>
          {apiFilters.map((f) => (
            <option key={f.id} value={f.id}>
              {f.label}
            </option>
          ))}
        </select>
        <button type="submit" disabled={recent.isFetching || counts.isFetching}>
          Refresh
        </button>
      </Form>
      <p className="hint">
        Every request naming this project is logged: its GraphQL endpoint and the Management API's calls about it (this dashboard's included). Errors are
        answers with status 400 and up.
      </p>
      {counts.isFetching && <Progress label="Counting requests" />}
      {counts.error && <ErrorNotice error={counts.error} onRetry={() => counts.refetch()} />}
      {buckets && <RequestChart buckets={buckets} per={perBucket(range)} />}
      {recent.isFetching && <Progress label="Reading recent requests" />}
      {recent.error && <ErrorNotice error={recent.error} onRetry={() => recent.refetch()} />}
      {recent.data && (
        <DataTable caption={`Recent requests (${range.label.toLowerCase()}, newest first)`} columns={columns} rows={recent.data.result} empty="No request in this range." />
      )}
    </section>
  );
}
