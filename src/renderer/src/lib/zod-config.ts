// Imported first by main.tsx, before any module that builds a zod schema: zod decides at schema
// construction whether to compile parsers with `new Function`, and probing that under this
// page's CSP (no eval) makes the browser report a violation on every load.
import { z } from 'zod'

z.config({ jitless: true })
