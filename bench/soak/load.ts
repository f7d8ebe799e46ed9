// The soak's clients, in their own process: keeps CONCURRENCY streams open for SECONDS, starting a
// new one as each ends, and checks every stream got every numbered delta in order and [DONE].
const [url, key] = process.argv.slice(2)
const concurrency = Number(process.env.CONCURRENCY ?? 1000)
const seconds = Number(process.env.SECONDS ?? 60)
const deltas = Number(process.env.DELTAS ?? 32)
const until = Date.now() + seconds * 1000
const totals: { streams: number; complete: number; broken: number; firstProblem: unknown; problems: Record<string, number> } = {
  streams: 0,
  complete: 0,
  broken: 0,
  firstProblem: null,
  problems: {},
}

/** Broken streams by what broke them: the status and the error's code or message. */
function countProblem(kind: string): void {
  totals.problems[kind] = (totals.problems[kind] ?? 0) + 1
}

function problemOf(status: number, text: string): string {
  const error = /"error":\{[^}]*?"message":"([^"]{0,120})/.exec(text)?.[1] ?? ''
  return `${status} ${error}`.trim()
}

async function oneStream(): Promise<void> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'soak' }] }),
  })
  const text = await response.text()
  const contents = [...text.matchAll(/"content":"<(\d+)>"/g)].map((m) => Number(m[1]))
  const inOrder = contents.length === deltas && contents.every((n, i) => n === i)
  const done = text.endsWith('data: [DONE]\n\n')
  totals.streams++
  if (response.status === 200 && inOrder && done) totals.complete++
  else {
    totals.broken++
    totals.firstProblem ??= { status: response.status, got: contents.length, done, tail: text.slice(-200) }
    countProblem(problemOf(response.status, text))
  }
}

async function worker(): Promise<void> {
  while (Date.now() < until) {
    try {
      await oneStream()
    } catch (error) {
      totals.streams++
      totals.broken++
      totals.firstProblem ??= { error: String(error) }
      const cause = (error as { cause?: { code?: string } }).cause
      countProblem(`client: ${String(cause?.code ?? error)}`)
    }
  }
}

// A CommonJS module (the root package has no "type"), so no top-level await.
void Promise.all(Array.from({ length: concurrency }, worker)).then(() => process.stdout.write(JSON.stringify(totals) + '\n'))
