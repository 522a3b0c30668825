// Overview page (`#/project/<ref>`): the project's GraphQL address, its API keys and the health of
// its services. Three calls when it opens: the project, its keys, its health.
import { Link } from "wouter";
import { pagePath, projectGraphqlUrl } from "../api/paths";
import { useHealth } from "../api/queries";
import type { Project } from "../api/types";
import { PageTitle } from "../app/PageTitle";
import { CopyButton } from "../widgets/CopyButton";
import { localTime } from "../widgets/dates";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { ApiKeysPanel } from "./ApiKeysPanel";
import { HealthList } from "./HealthList";

export function OverviewPage({ project }: { project: Project }) {
  const health = useHealth(project.ref);
  const url = projectGraphqlUrl(location.origin, project.ref);
  return (
    <section>
      <PageTitle title={`${project.name} · Overview`}>{project.name}</PageTitle>
      <dl className="facts">
        <dt>GraphQL endpoint</dt>
        <dd>
          <code>{url}</code> <CopyButton value={url} label="Copy the GraphQL endpoint" /> · <Link href={pagePath(project.ref, "graphiql")}>Open GraphiQL</Link>
        </dd>
        <dt>Region</dt>
        <dd>{project.region}</dd>
        <dt>Database</dt>
        <dd>
          {project.database ? `PostgreSQL ${project.database.version} on ${project.database.host}` : "—"}
        </dd>
        <dt>Created</dt>
        <dd>{localTime(project.created_at)}</dd>
      </dl>
      <ApiKeysPanel projectRef={project.ref} />
      <section aria-labelledby="health-title">
        <h2 id="health-title">Health</h2>
        <button type="button" onClick={() => health.refetch()} disabled={health.isFetching}>
          Check again
        </button>
        {health.isFetching && <Progress label="Checking the services" />}
        {health.data && <HealthList health={health.data} />}
        {health.error && <ErrorNotice error={health.error} onRetry={() => health.refetch()} />}
      </section>
    </section>
  );
}
