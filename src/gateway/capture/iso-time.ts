/** The last time `toISOString` writes with a four-digit year (`YYYY-MM-DDTHH:MM:SS.mmmZ`). */
const LAST_FOUR_DIGIT_YEAR_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

let secondMs = Number.NaN
/** `YYYY-MM-DDTHH:MM:SS.` of the second at `secondMs`. */
let secondText = ''

/**
 * `new Date(ms).toISOString()`, with the text of the last second asked for kept: every exchange's
 * record has its start time, and Date's formatting was about a seventh of building a small
 * exchange's record, on a path that runs with little of it in the processor's caches.
 */
export function isoTime(ms: number): string {
  // Before 1970 a time's remainder of a second is negative: Date writes those (and NaN's error).
  if (!(ms >= 0 && ms <= LAST_FOUR_DIGIT_YEAR_MS)) return new Date(ms).toISOString()
  const whole = Math.trunc(ms)
  const millis = whole % 1000
  const second = whole - millis
  if (second !== secondMs) {
    secondText = new Date(second).toISOString().slice(0, -4)
    secondMs = second
  }
  return secondText + (millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : `${millis}`) + 'Z'
}
