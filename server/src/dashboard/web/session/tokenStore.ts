// Session stage: the personal access token, kept in sessionStorage (this tab only, gone when it
// closes) → the current token for the API client and React (useSyncExternalStore).
import { useSyncExternalStore } from "react";

const key = "pg-graphql-dashboard-token";
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

export function currentToken(): string | null {
  return sessionStorage.getItem(key);
}

export function signIn(token: string): void {
  sessionStorage.setItem(key, token);
  notify();
}

export function signOut(): void {
  sessionStorage.removeItem(key);
  notify();
}

/** Calls `listener` on every sign-in and sign-out, before React renders the change. */
export function onTokenChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useToken(): string | null {
  return useSyncExternalStore(onTokenChange, currentToken);
}
