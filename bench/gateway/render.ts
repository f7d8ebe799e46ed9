// Re-render a results file as the markdown tables, without measuring anything:
//   npx tsx bench/gateway/render.ts [results/latest.json] [--docs]   (--docs also updates docs/benchmark.md)
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { HERE } from './lib'
import { renderMarkdown, updateDocs } from './report'
import type { Results } from './types'

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--')) ?? join(HERE, 'results', 'latest.json')
const markdown = renderMarkdown(JSON.parse(readFileSync(resolve(file), 'utf8')) as Results)
process.stdout.write(markdown + '\n')
if (args.includes('--docs')) updateDocs(markdown)
