// One exchange as GET /v1/traffic/exchanges/{id}/live tells it: a snapshot, then the frames of
// both sides as they are recorded, then the final record, which replaces everything. Pure.
import type { Exchange, ExchangeFollowEvent } from '../../../shared/api/traffic'

/** The exchange after one event; undefined until the first snapshot (frames before it cannot be placed). */
export function applyFollowEvent(current: Exchange | undefined, event: ExchangeFollowEvent): Exchange | undefined {
  if (event.type !== 'exchange.frames') return event.exchange
  if (current === undefined) return undefined
  const { upstream } = current
  return {
    ...current,
    response: event.frames.length === 0 ? current.response : { ...current.response, frames: [...current.response.frames, ...event.frames] },
    upstream: upstream === null || event.upstream_frames.length === 0 ? upstream : { ...upstream, frames: [...upstream.frames, ...event.upstream_frames] },
  }
}
