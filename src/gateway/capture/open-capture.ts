import type { CaptureLimits, CaptureMode } from '../../shared/api/traffic'
import { captureLimits, DEFAULT_DISK_LIMITS, DEFAULT_MEMORY_LIMITS } from './capture-limits'
import { DiskStore } from './disk-store'
import { MemoryStore } from './memory-store'
import { loadSqliteDriver } from './sqlite-driver'
import { TrafficCapture, type OpenedStore } from './traffic-capture'

/**
 * The capture a gateway runs with: `off` (no store: events only), `memory`, or `disk` (SQLite in
 * the home directory; the native module is loaded only then — `memory` never needs it). The
 * limits set by flags or config.json apply to whichever mode it is switched to later.
 */
export async function openCapture(mode: CaptureMode, home: string, overrides: Partial<CaptureLimits>): Promise<TrafficCapture> {
  const open = (next: CaptureMode) => openStore(next, home, overrides)
  return new TrafficCapture(await open(mode), open)
}

async function openStore(mode: CaptureMode, home: string, overrides: Partial<CaptureLimits>): Promise<OpenedStore> {
  if (mode === 'off') return { mode, limits: captureLimits(DEFAULT_MEMORY_LIMITS, overrides), store: undefined }
  if (mode === 'memory') {
    const limits = captureLimits(DEFAULT_MEMORY_LIMITS, overrides)
    return { mode, limits, store: new MemoryStore(limits) }
  }
  const limits = captureLimits(DEFAULT_DISK_LIMITS, overrides)
  return { mode, limits, store: DiskStore.open(await loadSqliteDriver(), home, limits) }
}
