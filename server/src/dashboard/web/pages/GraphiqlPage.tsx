// GraphiQL page (`#/project/<ref>/graphiql`, loaded as its own chunk): GraphiQL against the
// project's /graphql/v1 with its anon key preset and an editable Authorization header, and
// whether introspection (which the documentation explorer needs) is on for the schemas the data
// API serves. It is off by default; the page shows the statement that turns it on and never runs
// it. Four calls when it opens: the project, its keys, its data API settings, their comments.
import { useMemo } from "react";
import { useLocation } from "wouter";
import { graphiqlElement } from "../../../graphiql/graphiqlElement";
import { pagePath, projectGraphqlUrl } from "../api/paths";
import { useApiKeys, useProjectResource, useReadOnlyRows } from "../api/queries";
import type { PostgrestConfig, Project } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { introspectionState, introspectionStatement, schemaCommentsSql } from "./introspection";
import { writeDraft } from "./sqlDraft";

function IntrospectionNotice({ project, schemas }: { project: Project; schemas: string }) {
  const comments = useReadOnlyRows(project.ref, schemaCommentsSql, [schemas]);
  const [, navigate] = useLocation();
  if (comments.error) return <ErrorNotice error={comments.error} onRetry={() => comments.refetch()} />;
  if (!comments.data) return null;
  const rows = comments.data as Array<{ schema: string; comment: string | null }>;
  const off = rows.filter((r) => introspectionState(r.comment).kind !== "on");
  if (off.length === 0) {
    return (
      <p className="notice" role="status">
        Introspection is on for {rows.map((r) => r.schema).join(", ")}: the documentation explorer and completion list their tables.
      </p>
    );
  }
  const statements = off.map((r) => introspectionStatement(r.schema, r.comment)).join("\n");
  return (
    <div className="notice" role="note" aria-label="Introspection">
      <p>
        <strong>Introspection is off</strong> for {off.map((r) => r.schema).join(", ")}, as pg_graphql has it by default: GraphiQL's schema request is
        refused or sees none of their tables, so the documentation explorer and completion are empty (queries still run). To turn it on for a schema,
        give it a comment directive, as its owner:
      </p>
      <pre>{statements}</pre>
      {off.map((r) => {
        const state = introspectionState(r.comment);
        return state.kind === "unreadable" ? <p key={r.schema}>The comment of {r.schema} has a directive pg_graphql cannot read: {state.message}</p> : null;
      })}
      <button
        type="button"
        onClick={() => {
          writeDraft(project.ref, statements);
          navigate(pagePath(project.ref, "sql"));
        }}
      >
        Put it in the SQL editor
      </button>{" "}
      (it runs only when you run it there), then reload the schema in GraphiQL.
    </div>
  );
}

export default function GraphiqlPage({ project }: { project: Project }) {
  const keys = useApiKeys(project.ref, false);
  const postgrest = useProjectResource<PostgrestConfig>(project.ref, "/postgrest");
  const endpoint = projectGraphqlUrl(location.origin, project.ref);
  const anon = keys.data?.find((k) => k.type === "legacy" && k.name === "anon") ?? keys.data?.find((k) => k.type === "publishable");
  const key = anon?.api_key ?? "";
  const element = useMemo(
    () =>
      keys.data &&
      graphiqlElement({
        endpoint,
        headers: { apikey: key, Authorization: `Bearer ${key}` },
        defaultQuery: `# Requests go to ${endpoint}\n# with the headers below: the project's ${anon?.name ?? ""} key, as the anon role.\n# Put a user's JWT in Authorization to run as that user.\n{\n  __typename\n}\n`,
      }),
    [endpoint, key, keys.data !== undefined],
  );
  return (
    <section className="graphiql-page">
      <PageTitle title={`${project.name} · GraphiQL`}>GraphiQL</PageTitle>
      {project.status !== "ACTIVE_HEALTHY" && (
        <p className="notice" role="status">
          The project is {project.status}: its data API answers only while it is active.
        </p>
      )}
      {postgrest.data && <IntrospectionNotice project={project} schemas={postgrest.data.db_schema} />}
      {postgrest.error && <ErrorNotice error={postgrest.error} onRetry={() => postgrest.refetch()} />}
      {keys.error && <ErrorNotice error={keys.error} onRetry={() => keys.refetch()} />}
      {keys.isPending && <Progress label="Reading the project's keys" />}
      {keys.data && !anon && <p className="notice">The project has no anon or publishable key enabled: put a key in the apikey header below.</p>}
      <div className="graphiql-host">{element}</div>
    </section>
  );
}
