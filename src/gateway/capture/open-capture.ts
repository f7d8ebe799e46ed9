import type { CaptureLimits, CaptureMode } from '../../shared/api/traffic'
import { captureLimits, DEFAULT_DISK_LIMITS, DEFAULT_MEMORY_LIMITS } from './capture-limits'
import { DiskStore } from './disk-store'
import { MemoryStore } from './memory-store'
import { loadSqliteDriver } from './sqlite-driver'
import { TrafficCapture } from './traffic-capture'

/**
 * The capture a gateway runs with: `off` (no store: events only), `memory`, or `disk` (SQLite in
 * the home directory; the native module is loaded only then — `memory` never needs it).
 */
export async function openCapture(mode: CaptureMode, home: string, overrides: Partial<CaptureLimits>): Promise<TrafficCapture> {
  if (mode === 'off') return new TrafficCapture('off', captureLimits(DEFAULT_MEMORY_LIMITS, overrides), undefined)
  if (mode === 'memory') {
    const limits = captureLimits(DEFAULT_MEMORY_LIMITS, overrides)
    return new TrafficCapture('memory', limits, new MemoryStore(limits))
  }
  const limits = captureLimits(DEFAULT_DISK_LIMITS, overrides)
  return new TrafficCapture('disk', limits, DiskStore.open(await loadSqliteDriver(), home, limits))
}
