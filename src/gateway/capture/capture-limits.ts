import type { CaptureLimits } from '../../shared/api/traffic'

const MiB = 1024 * 1024

/**
 * What the in-memory store keeps at most. 64 MiB holds a few thousand typical IDE exchanges (an
 * agent's 10–50k-token prompt is 40–200 KB); 2 MiB per exchange keeps a whole long stream.
 */
export const DEFAULT_MEMORY_LIMITS: CaptureLimits = {
  max_bytes: 64 * MiB,
  max_exchanges: 5_000,
  max_exchange_bytes: 2 * MiB,
  retention_days: null,
}

/** What the disk store keeps at most: a week, and no more than 512 MiB of exchange text. */
export const DEFAULT_DISK_LIMITS: CaptureLimits = {
  max_bytes: 512 * MiB,
  max_exchanges: 100_000,
  max_exchange_bytes: 2 * MiB,
  retention_days: 7,
}

/** The limits in force: the mode's defaults, with what the user set; one exchange never exceeds the store. */
export function captureLimits(defaults: CaptureLimits, overrides: Partial<CaptureLimits>): CaptureLimits {
  const limits = { ...defaults, ...overrides }
  return { ...limits, max_exchange_bytes: Math.min(limits.max_exchange_bytes, limits.max_bytes) }
}
