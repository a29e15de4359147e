/**
 * Several tasks at once, as one: the first failure aborts the others (through the signal each one is given) and is
 * the error thrown, once every task has settled, so that nothing started is left running behind the caller.
 */
export async function allOrAbort<K, T>(
  outer: AbortSignal | undefined,
  keys: readonly K[],
  fn: (key: K, signal: AbortSignal) => Promise<T>,
): Promise<T[]> {
  const inner = new AbortController();
  const onAbort = () => inner.abort(outer?.reason);
  if (outer?.aborted) inner.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  let first: { error: unknown } | undefined;
  try {
    const settled = await Promise.allSettled(
      keys.map((k) =>
        fn(k, inner.signal).catch((e: unknown) => {
          first ??= { error: e };
          inner.abort(e);
          throw e;
        }),
      ),
    );
    if (first) throw first.error;
    return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
  } finally {
    outer?.removeEventListener("abort", onAbort);
  }
}
