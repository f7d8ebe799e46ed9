// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'

// Layering by where code runs (see docs/architecture.md):
//   shared (pure TS) <- gateway, cli (Node) <- main (Electron)
//   shared <- renderer logic (pure TS) <- renderer (DOM);  shared <- preload (Electron sandbox)
// Each layer lists what it must not import. These rules are the enforcement, not a suggestion.
const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'crypto', 'events', 'fs', 'fs/promises', 'http', 'https',
  'net', 'os', 'path', 'process', 'stream', 'timers', 'timers/promises', 'url', 'util', 'zlib',
]
const layer = (name, { paths = [], patterns = [] }) => ({
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: paths.map((p) => ({ name: p, message: `The ${name} layer must not import ${p}.` })),
        patterns: patterns.map((group) => ({
          group: [group],
          message: `The ${name} layer must not import ${group} (see docs/architecture.md#layers).`,
        })),
      },
    ],
  },
})

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', '**/node_modules/**', 'test-results/**', 'playwright-report/**', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Plain Node scripts (this file): Node's globals, no type information.
    files: ['**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'Buffer', 'URL', 'fetch', 'performance', 'AbortController', 'TextDecoder', 'TextEncoder',
          'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'structuredClone'].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['src/shared/**/*.{ts,tsx}'],
    ...layer('shared', {
      paths: ['electron', 'express', ...nodeBuiltins],
      patterns: ['node:*', '**/gateway/**', '**/main/**', '**/cli/**', '**/preload/**', '**/renderer/**'],
    }),
  },
  {
    files: ['src/gateway/**/*.ts', 'src/cli/**/*.ts'],
    ...layer('gateway/cli', {
      paths: ['electron'],
      patterns: ['electron/*', '**/main/**', '**/preload/**', '**/renderer/**'],
    }),
  },
  {
    files: ['src/gateway/**/*.ts'],
    ...layer('gateway', {
      paths: ['electron'],
      patterns: ['electron/*', '**/main/**', '**/preload/**', '**/renderer/**', '**/cli/**'],
    }),
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    ...layer('renderer', {
      paths: ['electron', 'express', ...nodeBuiltins],
      patterns: ['node:*', '**/gateway/**', '**/main/**', '**/cli/**', '**/preload/index*'],
    }),
  },
  {
    // The renderer's logic: what the views show, computed without the DOM or React, so it is
    // testable in plain Node. tsconfig.node.json compiles it without the DOM library too.
    files: ['src/renderer/src/logic/**/*.ts'],
    ...layer('renderer logic', {
      paths: ['electron', 'express', 'react', 'react-dom', ...nodeBuiltins],
      patterns: ['node:*', '**/gateway/**', '**/main/**', '**/cli/**', '**/preload/**', 'react/*', 'react-dom/*', '**/components/**', '**/hooks/**', '**/lib/**', '**/views/**'],
    }),
  },
  {
    files: ['src/preload/**/*.ts'],
    ...layer('preload', {
      paths: ['express', ...nodeBuiltins],
      patterns: ['node:*', '**/gateway/**', '**/main/**', '**/cli/**', '**/renderer/**'],
    }),
  },
  {
    // Everything vitest and Playwright load runs in plain Node or a browser: no electron there.
    files: ['src/integration/**/*.ts', 'src/test-kit/**/*.ts', 'e2e/**/*.ts', 'src/**/*.test.ts', 'src/**/*.test.tsx'],
    ...layer('test', { paths: ['electron'], patterns: ['electron/*'] }),
  },
  {
    files: ['src/main/**/*.ts'],
    ...layer('main', { patterns: ['**/renderer/**', '**/preload/**'] }),
  },
)
