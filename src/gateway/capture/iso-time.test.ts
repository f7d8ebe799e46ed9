import { describe, expect, it } from 'vitest'
import { isoTime } from './iso-time'

describe('isoTime', () => {
  it('writes what Date#toISOString writes, within a second, across seconds, and out of its range', () => {
    const now = Date.UTC(2026, 11, 7, 17, 59, 59, 0)
    const times = [now, now + 1, now + 9, now + 10, now + 99, now + 100, now + 999, now + 1000, now + 1001, now - 1, now + 12.7, 0, 0.5, 999, 1000, Date.UTC(9999, 11, 31, 23, 59, 59, 999)]
    // Back and forth between seconds; before 1970 (Date's own path); past year 9999, where Date writes a sign and six digits.
    times.push(now + 3_600_000, now, -1, -1500, Date.UTC(10000, 0, 1), now + 86_400_000 * 366)
    for (let step = 0; step < 3000; step += 7) times.push(now + step * 13)
    for (const ms of times) expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString())
  })
})
