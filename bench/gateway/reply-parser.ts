// The model server's reply as the gateway's own HTTP/1.1 client reads it (head and a small JSON
// body), timed in one process for two checkouts in turn, with the processor's caches thrashed
// between replies: a reply's head is read once per request, and at c=1 — a stream's first frame,
// an agent's turn after a pause, a request after the last one's capture — it runs with little of
// its code and data cached. Hot, the head's parse is a few µs and moves nothing a whole process
// shows; cold, it was tens of µs.
//
//   npx tsx bench/gateway/reply-parser.ts --baseline DIR [--cold-mb 0,4,16] [--count 20000]
//
// --baseline DIR: a checkout of another commit (its src/). --cold-mb: the memory touched (one byte
// every 64, a cache line) before each reply, in MiB, one run per figure: 0 is the hot case; this
// machine reports 1 MiB of L2 per core and 32 MiB of L3 shared by the host's other work, so 4
// leaves nothing of a reply's in L2, and 16 little in L3. Medians (and p10, p90) of the last 80 %
// of replies.
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ROOT } from './lib'
import { SMALL_COMPLETION } from './prompts'

type Parser = typeof import('../../src/gateway/backends/upstream/http1-reply-parser')

const { values: opts } = parseArgs({
  options: { baseline: { type: 'string' }, 'cold-mb': { type: 'string', default: '0,4,16' }, count: { type: 'string', default: '20000' } },
})
if (opts.baseline === undefined) throw new Error('--baseline DIR: a checkout of the commit to compare with')
const COUNT = Number(opts.count)
const load = async (root: string): Promise<Parser['Http1ReplyParser']> =>
  ((await import(join(root, 'src/gateway/backends/upstream/http1-reply-parser.ts'))) as Parser).Http1ReplyParser
const parsers = { baseline: await load(opts.baseline), 'this checkout': await load(ROOT) }

// What the sweep's fake model server answers, with the headers a Node server adds.
const body = SMALL_COMPLETION
const wire = Buffer.from(
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nx-fake-server: fake\r\n` +
    `Date: Mon, 07 Dec 2026 17:14:32 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\n${body}`,
  'latin1',
)

let delivered = 0
const events = {
  head: (head: { statusCode: number }) => void (delivered += head.statusCode),
  body: (bytes: Buffer) => void (delivered += bytes.length),
  end: () => void delivered++,
  error: (message: string) => {
    throw new Error(message)
  },
}
const names = Object.keys(parsers) as (keyof typeof parsers)[]
const us = (ms: number | undefined): string => ((ms ?? NaN) * 1000).toFixed(1)
console.log('| cache thrashed between replies | checkout | p10 (µs) | median (µs) | p90 (µs) |\n|---|---|---:|---:|---:|')
for (const mb of opts['cold-mb'].split(',').map(Number)) {
  const thrash = new Uint8Array(mb * 1024 * 1024)
  const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
  for (let n = 0; n < COUNT; n++) {
    // Each checkout goes first every other reply.
    for (const name of n % 2 === 0 ? names : [...names].reverse()) {
      for (let at = 0; at < thrash.length; at += 64) thrash[at]!++
      const started = performance.now()
      new parsers[name](events, true).push(wire)
      times[name]!.push(performance.now() - started)
    }
  }
  for (const name of names) {
    const kept = times[name]!.slice(COUNT / 5).sort((a, b) => a - b)
    const at = (share: number) => kept[Math.floor(kept.length * share)]
    console.log(`| ${mb} MiB | ${name} | ${us(at(0.1))} | ${us(at(0.5))} | ${us(at(0.9))} |`)
  }
}
if (delivered === 0) throw new Error('no reply was read')
