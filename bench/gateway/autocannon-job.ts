// autocannon, closed loop, in its own process: `node --import tsx autocannon-job.ts '<job as JSON>'` prints
// autocannon's result plus this process's CPU use (so run.ts does not count it as someone else's).
// Its latency histogram has 1 ms resolution, so only its request rate is used.
import autocannon from 'autocannon'
import type { AutocannonJob } from './lib'

const job = JSON.parse(process.argv[2] ?? '{}') as AutocannonJob
if (!/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(job.url)) throw new Error('autocannon-job sends to loopback only')
const cpuStart = process.cpuUsage()
const wallStart = performance.now()
const result = await autocannon({
  url: job.url,
  method: 'POST',
  headers: { ...job.headers, 'content-type': 'application/json' },
  body: job.body,
  connections: job.connections,
  duration: job.durationS,
})
const cpu = process.cpuUsage(cpuStart)
const wallMs = performance.now() - wallStart
process.stdout.write(JSON.stringify({ ...result, wallMs, loadCpuCores: (cpu.user + cpu.system) / 1000 / wallMs }) + '\n')
