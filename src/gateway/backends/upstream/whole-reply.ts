import { errorText } from '../../../shared/narrow'
import { errnoCode } from '../../errno-code'
import type { StopSignal } from '../../generation/stop-signal'
import type { Replica } from './replica-pool'
import { upstreamBrokeOff, upstreamWentSilent } from './upstream-errors'
import { Http1Reply } from './http1-client'
import { readBodyBytes, type UpstreamReply } from './upstream-http'
import type { ReplyBody } from './parse-whole-reply'
import { asciiText } from '../../http/decode-in-pieces'
import { isAscii } from 'node:buffer'

/** The most of a model server's JSON reply that is read; the rest is cut and the connection closed. */
export const JSON_REPLY_LIMIT = 64 * 1024 * 1024

/**
 * A model server's JSON reply, read in full: undefined when the signal aborted meanwhile (the
 * server is hung up on at once). A body that stops coming for the replica's idle timeout is hung
 * up on like a silent stream; a broken connection is `upstream_error`.
 */
export async function readWholeReply(res: UpstreamReply, replica: Replica, signal: StopSignal): Promise<ReplyBody | undefined> {
  // All in already (a JSON reply usually comes in the read that brought its head): nothing to wait for.
  const whole = res instanceof Http1Reply ? res.takeWhole(JSON_REPLY_LIMIT) : undefined
  if (whole !== undefined) return signal.aborted ? undefined : replyBody(whole)
  const unsubscribe = signal.onAbort(() => res.destroy())
  let idledOut = false
  const idle = setTimeout(() => {
    idledOut = true
    res.destroy()
  }, replica.idleTimeoutMs)
  const onData = () => idle.refresh()
  res.on('data', onData)
  try {
    const bytes = await readBodyBytes(res, JSON_REPLY_LIMIT)
    return signal.aborted ? undefined : replyBody(bytes)
  } catch (error) {
    if (signal.aborted) return undefined
    if (idledOut) throw upstreamWentSilent(replica)
    throw upstreamBrokeOff(replica.id, `the connection broke (${errnoCode(error) ?? errorText(error)})`)
  } finally {
    clearTimeout(idle)
    res.off('data', onData)
    unsubscribe()
  }
}

/**
 * A reply's bytes and its text: ASCII decoded in pieces (no string of 128 KB or more, which costs
 * several times as much to make, is made unless something reads the text whole), else decoded.
 * Capture keeps the bytes, and the parse reads long members' bounds from them.
 */
function replyBody(bytes: Buffer): ReplyBody {
  return { bytes, text: isAscii(bytes) ? asciiText(bytes) : bytes.toString('utf8') }
}
