// App stage: an address that names no page of the dashboard.
import { Link } from "wouter";
import { PageTitle } from "./PageTitle";

export function NotFound() {
  return (
    <section>
      <PageTitle title="No such page" />
      <p>
        This address names no page of the dashboard. <Link href="/">Go to the projects</Link>.
      </p>
    </section>
  );
}
