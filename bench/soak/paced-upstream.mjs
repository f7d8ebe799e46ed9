// A paced OpenAI-compatible model server for the soak: every stream is DELTAS chunks DELAY_MS
// apart, numbered so a client can check it got every one, in order. Loopback only.
import { createServer } from 'node:http'

const deltas = Number(process.env.DELTAS ?? 32)
const delayMs = Number(process.env.DELAY_MS ?? 100)

const server = createServer((req, res) => {
  let body = ''
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    res.write(chunk({ role: 'assistant', content: '' }))
    let i = 0
    const timer = setInterval(() => {
      if (i < deltas) {
        res.write(chunk({ content: `<${i}>` }))
        i++
        return
      }
      clearInterval(timer)
      res.write(chunk({}, 'stop'))
      res.end('data: [DONE]\n\n')
    }, delayMs)
    res.on('close', () => clearInterval(timer))
  })
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
