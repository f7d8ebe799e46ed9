// Loaded into a gateway process (node --import) to see where one request's wall time goes at c=1:
// every socket read (`U-read`, the model server's side: what Node's parser has not consumed
// natively) and write (`C-write` to a client, `U-write` to a model server, with its end, since a
// loopback write can block while the woken reader runs on this core), one line each with
// performance.now() in ms, written to $MORTAR_TIMELINE_FILE every half second. Code under study
// can add its own lines with `globalThis.__mark?.('name')` in a scratch build.
//
//   npx tsx bench/gateway/cpu-per-request.ts --count 300 --rounds 1 "--node-args=--import $PWD/bench/gateway/socket-timeline.mjs"
import { openSync, writeSync } from 'node:fs'
import { Socket } from 'node:net'

const fd = openSync(process.env.MORTAR_TIMELINE_FILE ?? `timeline-${process.pid}.log`, 'w')
const lines = []
const now = () => performance.now().toFixed(3)
globalThis.__mark = (name) => lines.push(`${now()} ${name}`)

const push = Socket.prototype.push
Socket.prototype.push = function (chunk, encoding) {
  if (chunk) lines.push(`${now()} ${this.server ? 'C' : 'U'}-read ${chunk.length}`)
  return push.call(this, chunk, encoding)
}
const writeGeneric = Socket.prototype._writeGeneric
Socket.prototype._writeGeneric = function (writev, data, encoding, callback) {
  lines.push(`${now()} ${this.server ? 'C' : 'U'}-write`)
  const result = writeGeneric.call(this, writev, data, encoding, callback)
  lines.push(`${now()} write-done`)
  return result
}
setInterval(() => {
  if (lines.length === 0) return
  writeSync(fd, lines.join('\n') + '\n')
  lines.length = 0
}, 500).unref()
