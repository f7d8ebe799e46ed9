/**
 * A stopped stream ends like any other (usage if asked, then `[DONE]`) but without a finish chunk.
 * Just before its end it carries an SSE comment saying who stopped it, which every client ignores
 * and the inspector reads: a stop call (from any client) or the gateway shutting down.
 */
export type StoppedBy = 'stop_call' | 'shutdown'

export const STOPPED_COMMENT: Readonly<Record<StoppedBy, string>> = {
  stop_call: 'stopped: a stop call',
  shutdown: 'stopped: the gateway is shutting down',
}

/** Who stopped the stream, when a comment's text is one of STOPPED_COMMENT. */
export function stoppedByOf(comment: string): StoppedBy | undefined {
  return (Object.keys(STOPPED_COMMENT) as StoppedBy[]).find((by) => STOPPED_COMMENT[by] === comment)
}
