// Widget: a failed call, shown as it is (title, the API's own message, a 429's countdown), with
// what can be done: sign in again after a 401, retry once a 429's block is over.
import { ApiFailure, describeFailure } from "../api/apiFailure";
import { currentToken, signOut } from "../session/tokenStore";
import { useNow } from "./useNow";

export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const limited = error instanceof ApiFailure && error.status === 429 && error.retryAt !== undefined;
  const now = useNow(limited);
  const text = describeFailure(error, now);
  const waiting = limited && (error as ApiFailure).retryAt! > now;
  return (
    <div role="alert" className="notice notice-error">
      <strong>{text.title}</strong>
      <pre className="notice-detail">{text.detail}</pre>
      <div className="actions">
        {text.signInAgain && currentToken() !== null && (
          <button type="button" onClick={signOut}>
            Sign in again
          </button>
        )}
        {onRetry && (
          <button type="button" onClick={onRetry} disabled={waiting}>
            Retry
          </button>
        )}
      </div>
    </div>
  );
}
