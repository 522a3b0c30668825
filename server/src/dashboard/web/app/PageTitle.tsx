// App stage: a page's heading, which also names the browser tab and takes the focus when the page
// opens, so keyboard and screen-reader users start at the new page's top.
import { useEffect, useRef, type ReactNode } from "react";

export function PageTitle({ title, children }: { title: string; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · pg_graphql dashboard`;
    heading.current?.focus();
  }, [title]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children ?? title}
    </h1>
  );
}
