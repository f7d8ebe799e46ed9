// Loaded into a Mortar process by `cpu-per-request.ts --survivors` (node --import): samples the
// process's allocations from the start, keeping the samples of objects that a young collection
// (scavenge) found alive and only a full collection freed or nobody freed yet — the objects that
// make scavenges cost. SIGUSR2 writes the profile (a .heapprofile, Chrome's format) to
// $MORTAR_SURVIVORS_DIR/<pid>.heapprofile.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { join } from 'node:path'

const dir = process.env.MORTAR_SURVIVORS_DIR ?? '.'
const session = new Session()
session.connect()
session.post('HeapProfiler.enable')
// One sample per 8 KB allocated on average; V8 drops a sample when its object dies in a scavenge.
session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false })
process.on('SIGUSR2', () => {
  session.post('HeapProfiler.getSamplingProfile', (error, result) => {
    if (error === null) writeFileSync(join(dir, `${process.pid}.heapprofile`), JSON.stringify(result.profile))
  })
})
