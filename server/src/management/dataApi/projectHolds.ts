// Data API stage: projects whose database must stay without sessions for a moment (a branch
// copies it as a template) → new data API requests and routed sessions of that project wait
// until the hold ends, or its time runs out, instead of opening a session that would stop the copy.
interface Hold {
  ended: Promise<void>;
  end: () => void;
  timer: NodeJS.Timeout;
}

export class ProjectHolds {
  private readonly held = new Map<string, Hold>();

  /** Holds the project's new sessions for at most `ms` (a hold already there is renewed). */
  hold(ref: string, ms: number): void {
    this.resume(ref);
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const timer = setTimeout(() => this.resume(ref), ms);
    timer.unref();
    this.held.set(ref, { ended, end, timer });
  }

  resume(ref: string): void {
    const hold = this.held.get(ref);
    if (!hold) return;
    this.held.delete(ref);
    clearTimeout(hold.timer);
    hold.end();
  }

  /** Resolves at once when the project is not held, else when its hold ends. */
  until(ref: string): Promise<void> | undefined {
    return this.held.get(ref)?.ended;
  }
}
