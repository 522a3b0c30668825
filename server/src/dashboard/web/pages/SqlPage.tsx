// SQL page (`#/project/<ref>/sql`): an editor over `database/query` (the rows of the last
// statement in a sortable grid; PostgreSQL's error with the place it points at; a switch to run
// on the read-only login), saving the text as a migration, and the migrations list. Two calls
// when it opens: the project and its migrations.
import { useId, useMemo, useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../api/apiClient";
import { ApiFailure } from "../api/apiFailure";
import { projectApi } from "../api/paths";
import { invalidateResource, queryClient } from "../api/queries";
import type { Project, Row } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { DataTable, type ColumnSpec } from "../widgets/DataTable";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { MigrationsPanel } from "./MigrationsPanel";
import { cellText } from "./cellText";
import { errorPosition } from "./sqlErrorPosition";
import { readDraft, writeDraft } from "./sqlDraft";
import { Form } from "../widgets/Form";

interface RunResult {
  rows: Row[];
  ms: number;
  readOnly: boolean;
}

function ResultGrid({ result }: { result: RunResult }) {
  const columns = useMemo<ColumnSpec<Row>[]>(() => {
    const names = result.rows.length > 0 ? Object.keys(result.rows[0]!) : [];
    return names.map((name) => ({ id: name, header: name, value: (row: Row) => cellText(row[name]), numeric: typeof result.rows[0]![name] === "number" }));
  }, [result]);
  if (result.rows.length === 0) {
    return <p role="status">The statements ran{result.readOnly ? " (read-only)" : ""} in {result.ms} ms; the last one returned no rows.</p>;
  }
  return (
    <>
      <p role="status">
        {result.rows.length} rows in {result.ms} ms{result.readOnly ? " (read-only)" : ""}.
      </p>
      <DataTable caption="Result" columns={columns} rows={result.rows} empty="No rows." pageSize={50} />
    </>
  );
}

export function SqlPage({ project }: { project: Project }) {
  const [text, setText] = useState(() => readDraft(project.ref));
  const [readOnly, setReadOnly] = useState(false);
  // Counts finished runs, so an answer is told from the one before it (also by the browser test).
  const [runs, setRuns] = useState(0);
  const editor = useRef<HTMLTextAreaElement>(null);
  const ids = { editor: useId(), readOnly: useId() };
  const run = useMutation({
    mutationFn: async (): Promise<RunResult> => {
      const started = performance.now();
      const rows = await api.post<Row[]>(projectApi(project.ref, "/database/query"), { query: text, read_only: readOnly });
      return { rows: Array.isArray(rows) ? rows : [], ms: Math.round(performance.now() - started), readOnly };
    },
    onSettled: () => setRuns((n) => n + 1),
    // What the text changed (tables, comments, grants) is read again when a page next shows it.
    onSuccess: (result) => (result.readOnly ? undefined : queryClient.invalidateQueries({ queryKey: ["project", project.ref], refetchType: "none" })),
  });
  const position = run.error instanceof ApiFailure ? errorPosition(run.error.detail, text) : undefined;
  const edit = (value: string) => {
    setText(value);
    writeDraft(project.ref, value);
  };
  const showPosition = () => {
    if (!position || !editor.current) return;
    editor.current.focus();
    editor.current.setSelectionRange(position.offset, Math.min(position.offset + 1, text.length));
  };
  return (
    <section>
      <PageTitle title={`${project.name} · SQL`}>SQL</PageTitle>
      <Form
        className="sql"
        onSubmit={() => run.mutate()}
      >
        <label htmlFor={ids.editor}>SQL to run in the project's database</label>
        <textarea
          id={ids.editor}
          ref={editor}
          value={text}
          onChange={(e) => edit(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              run.mutate();
            }
          }}
          rows={10}
          spellCheck={false}
          aria-describedby={`${ids.editor}-hint`}
        />
        <p id={`${ids.editor}-hint`} className="hint">
          Ctrl+Enter runs it. Without the switch it runs as the project's owner; with it, on the read-only login, where writes are refused.
        </p>
        <div className="actions">
          <button type="submit" disabled={run.isPending || text.trim() === ""}>
            Run
          </button>
          <label className="check" htmlFor={ids.readOnly}>
            <input id={ids.readOnly} type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read-only
          </label>
        </div>
      </Form>
      {run.isPending && <Progress label="Running" />}
      <div className="sql-answer" data-runs={runs}>
        {run.error && !run.isPending && <ErrorNotice error={run.error} />}
        {position && !run.isPending && (
          <button type="button" onClick={showPosition}>
            Show line {position.line}, column {position.column} in the editor
          </button>
        )}
        {run.data && !run.isPending && <ResultGrid result={run.data} />}
      </div>
      <MigrationsPanel projectRef={project.ref} text={text} onApplied={() => invalidateResource(project.ref, "/database/migrations")} />
    </section>
  );
}
