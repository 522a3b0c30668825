// App stage: the frame of every signed-in page: a skip link, the top bar (home, calls left, the
// signed-in user, sign out) and the page.
import type { ReactNode } from "react";
import { Link } from "wouter";
import { useProfile } from "../api/queries";
import { signOut } from "../session/tokenStore";
import { ErrorNotice } from "../widgets/ErrorNotice";
import { RateLimitStatus } from "./RateLimitStatus";

export function Shell({ children }: { children: ReactNode }) {
  const profile = useProfile();
  return (
    <>
      <a className="skip" href="#content" onClick={(e) => (e.preventDefault(), document.getElementById("content")?.focus())}>
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/" className="brand">
          pg_graphql dashboard
        </Link>
        <RateLimitStatus />
        <span className="who">{profile.data?.primary_email ?? ""}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      {profile.error && <ErrorNotice error={profile.error} />}
      <main id="content" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
