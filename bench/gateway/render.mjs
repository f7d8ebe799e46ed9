#!/usr/bin/env node
// Re-render a results file as the markdown tables, without measuring anything:
//   node bench/gateway/render.mjs [results/latest.json] [--docs]   (--docs also updates docs/benchmark.md)
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { HERE } from './lib.mjs'
import { renderMarkdown, updateDocs } from './report.mjs'

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--')) ?? join(HERE, 'results', 'latest.json')
const markdown = renderMarkdown(JSON.parse(readFileSync(resolve(file), 'utf8')))
process.stdout.write(markdown + '\n')
if (args.includes('--docs')) updateDocs(markdown)
