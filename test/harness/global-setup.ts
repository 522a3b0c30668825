// Vitest global setup: one throwaway cluster for the whole run; fails the run when the server
// log shows a backend terminated by a signal.
import type { TestProject } from "vitest/node";
import { crashLines, startCluster, stopCluster, type ClusterInfo } from "./cluster";

let cluster: ClusterInfo | undefined;

export default function setup(project: TestProject) {
  cluster = startCluster();
  project.provide("cluster", cluster);
  return () => {
    if (!cluster) return;
    const crashes = crashLines(cluster);
    stopCluster(cluster);
    if (crashes.length > 0) {
      throw new Error(`the server log shows crashed backends:\n${crashes.join("\n")}`);
    }
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    cluster: ClusterInfo;
  }
}
