// App stage: a project's pages → its name, status and tabs around the page. The page renders once
// the project is read (one call, shared by every tab), so a refused project costs no more calls.
import type { ReactNode } from "react";
import { Link } from "wouter";
import { pagePath, type ProjectPage } from "../api/paths";
import { useProject } from "../api/queries";
import type { Project } from "../api/types";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { Progress } from "../widgets/Progress";
import { StatusBadge } from "../widgets/StatusBadge";

const tabs: Array<[ProjectPage, string]> = [
  ["overview", "Overview"],
  ["graphiql", "GraphiQL"],
  ["sql", "SQL"],
  ["tables", "Tables"],
  ["logs", "Logs"],
  ["branches", "Branches"],
  ["functions", "Functions"],
  ["secrets", "Secrets"],
  ["settings", "Settings"],
];

export interface ProjectFrameProps {
  projectRef: string;
  page: ProjectPage;
  render(project: Project): ReactNode;
}

export function ProjectFrame({ projectRef, page, render }: ProjectFrameProps) {
  const project = useProject(projectRef);
  return (
    <div className="project">
      <div className="project-head">
        <Link href="/">Projects</Link> <span aria-hidden="true">/</span>{" "}
        <span className="project-name">{project.data?.name ?? projectRef}</span> <code>{projectRef}</code>{" "}
        {project.data && <StatusBadge status={project.data.status} />}
      </div>
      <nav className="tabs" aria-label="Project pages">
        {tabs.map(([id, label]) => (
          <Link key={id} href={pagePath(projectRef, id)} aria-current={id === page ? "page" : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      {project.isPending && <Progress label="Reading the project" />}
      {project.error && <ErrorNotice error={project.error} onRetry={() => project.refetch()} />}
      {project.data && render(project.data)}
    </div>
  );
}
