/**
 * A small AsyncDisposableStack (Node 20 lacks one): LIFO, idempotent, keeps going when one disposer fails and
 * reports every failure at the end.
 */
export class DisposableStack {
  private readonly items: Array<{ what: string; fn: () => Promise<void> }> = [];
  private disposing: Promise<string[]> | undefined;

  /** Register an undo step; returns a function that runs just that step early (and removes it from the stack). */
  defer(what: string, fn: () => Promise<void>): () => Promise<void> {
    const item = { what, fn };
    this.items.push(item);
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      const i = this.items.indexOf(item);
      if (i >= 0) this.items.splice(i, 1);
      await fn();
    };
  }

  get size(): number {
    return this.items.length;
  }

  /** Run every step in reverse order, once. Resolves to the list of failures ("what: message"). */
  dispose(): Promise<string[]> {
    this.disposing ??= (async () => {
      const failures: string[] = [];
      while (this.items.length > 0) {
        const item = this.items.pop()!;
        try {
          await item.fn();
        } catch (e) {
          failures.push(`${item.what}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      return failures;
    })();
    return this.disposing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}
