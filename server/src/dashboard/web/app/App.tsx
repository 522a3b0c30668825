// App stage: the signed-in state → the sign-in page, or the shell and the page the address names
// (hash routes under /dashboard/#/, so every page has a stable address).
import { lazy, Suspense, type ReactNode } from "react";
import { QueryClientProvider } from "@tanstack/react-query";
import { Route, Router, Switch } from "wouter";
import { useHashLocation } from "wouter/use-hash-location";
import { queryClient } from "../api/queries";
import type { ProjectPage } from "../api/paths";
import type { Project } from "../api/types";
import { useToken } from "../session/tokenStore";
import { SignIn } from "../session/SignIn";
import { Progress } from "../widgets/Progress";
import { Shell } from "./Shell";
import { ProjectFrame } from "./ProjectFrame";
import { NotFound } from "./NotFound";
import { ProjectsPage } from "../pages/ProjectsPage";
import { OverviewPage } from "../pages/OverviewPage";
import { SqlPage } from "../pages/SqlPage";
import { TablesPage } from "../pages/TablesPage";
import { LogsPage } from "../pages/LogsPage";
import { BranchesPage } from "../pages/BranchesPage";
import { FunctionsPage } from "../pages/FunctionsPage";
import { SecretsPage } from "../pages/SecretsPage";
import { SettingsPage } from "../pages/SettingsPage";

// GraphiQL is most of the bundle's weight: its chunk loads when its page opens.
const GraphiqlPage = lazy(() => import("../pages/GraphiqlPage"));

const pages: Record<ProjectPage, (project: Project) => ReactNode> = {
  overview: (project) => <OverviewPage project={project} />,
  graphiql: (project) => (
    <Suspense fallback={<Progress label="Loading GraphiQL" />}>
      <GraphiqlPage project={project} />
    </Suspense>
  ),
  sql: (project) => <SqlPage project={project} />,
  tables: (project) => <TablesPage project={project} />,
  logs: (project) => <LogsPage project={project} />,
  branches: (project) => <BranchesPage project={project} />,
  functions: (project) => <FunctionsPage project={project} />,
  secrets: (project) => <SecretsPage project={project} />,
  settings: (project) => <SettingsPage project={project} />,
};

function isPage(name: string): name is ProjectPage {
  return Object.prototype.hasOwnProperty.call(pages, name);
}

function ProjectRoute({ projectRef, page }: { projectRef: string; page: string }) {
  if (!isPage(page) || page === "overview") return <NotFound />;
  return <ProjectFrame projectRef={projectRef} page={page} render={pages[page]} />;
}

export function App() {
  const token = useToken();
  return (
    <QueryClientProvider client={queryClient}>
      {token === null ? (
        <SignIn />
      ) : (
        <Router hook={useHashLocation}>
          <Shell>
            <Switch>
              <Route path="/">
                <ProjectsPage />
              </Route>
              <Route path="/project/:ref">{(p) => <ProjectFrame projectRef={p.ref} page="overview" render={pages.overview} />}</Route>
              <Route path="/project/:ref/:page">{(p) => <ProjectRoute projectRef={p.ref} page={p.page} />}</Route>
              <Route>
                <NotFound />
              </Route>
            </Switch>
          </Shell>
        </Router>
      )}
    </QueryClientProvider>
  );
}
