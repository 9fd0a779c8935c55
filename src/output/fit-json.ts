/**
 * A JSON answer that fits its byte limit and stays valid JSON: the framework's truncation would cut
 * it mid-token, so a tool that answers in JSON shrinks its own value instead. `shrink(value, keep)`
 * returns the value with only `keep` of its `count` items (and says it was cut); the largest `keep`
 * that fits is found by bisection. If even `keep = 0` does not fit, that smallest form is returned.
 */
export function fitJson<T>(
  value: T,
  maxBytes: number,
  count: number,
  shrink: (value: T, keep: number) => T,
): { text: string; kept: number } {
  const whole = JSON.stringify(value);
  if (Buffer.byteLength(whole) <= maxBytes) return { text: whole, kept: count };
  let lo = 0;
  let hi = count - 1;
  let best = JSON.stringify(shrink(value, 0));
  let kept = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const text = JSON.stringify(shrink(value, mid));
    if (Buffer.byteLength(text) <= maxBytes) {
      best = text;
      kept = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return { text: best, kept };
}
