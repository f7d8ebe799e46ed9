import type { CaptureLimits, CaptureMode } from '../../shared/api/traffic'
import { captureLimits, DEFAULT_MEMORY_LIMITS } from './capture-limits'
import { MemoryStore } from './memory-store'
import { TrafficCapture } from './traffic-capture'

/**
 * The capture a gateway runs with: `off` (no store: events only), `memory`, or `disk` (SQLite in
 * the home directory, loaded only then — `memory` never needs the native module).
 */
export function openCapture(mode: CaptureMode, home: string, overrides: Partial<CaptureLimits>): TrafficCapture {
  if (mode === 'off') return new TrafficCapture('off', captureLimits(DEFAULT_MEMORY_LIMITS, overrides), undefined)
  if (mode === 'memory') {
    const limits = captureLimits(DEFAULT_MEMORY_LIMITS, overrides)
    return new TrafficCapture('memory', limits, new MemoryStore(limits))
  }
  void home
  throw new Error('--capture disk is not available yet')
}
