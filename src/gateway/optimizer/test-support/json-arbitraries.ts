import fc from 'fast-check'

/**
 * fast-check arbitraries for JSON *texts* (not values): every token written in one of the forms
 * JSON allows — numbers with big integers, `1.0`, exponents, `-0`; strings with escapes (`\u00e9`,
 * `\/`, `\"`), spaces, non-ASCII and astral characters — and random whitespace between tokens.
 */

export const jsonWhitespace = fc.string({ unit: fc.constantFrom(' ', ' ', '  ', '\t', '\n', '\r', '\r\n'), maxLength: 4 })

const digits = (min: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: 25 })

export const jsonNumberLiteral: fc.Arbitrary<string> = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0)).map(([a, b]) => a + b)),
    fc.option(digits(1), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1)), { nil: undefined }),
  )
  .map(([negative, int, frac, exp]) => (negative ? '-' : '') + int + (frac === undefined ? '' : '.' + frac) + (exp?.join('') ?? ''))

const hex4 = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 4, maxLength: 4 })

/** What JSON does not allow raw in a string: `"`, `\\` and control characters. */
function withoutRawStringSpecials(text: string): string {
  return [...text].filter((char) => char !== '"' && char !== '\\' && char.charCodeAt(0) >= 0x20).join('')
}

const stringPiece = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }).map(withoutRawStringSpecials) },
  { weight: 2, arbitrary: fc.constantFrom(' ', '  ', '   ', '{', '}', '[', ']', ',', ':', '```', "'") },
  { weight: 2, arbitrary: fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t') },
  { weight: 1, arbitrary: hex4.map((h) => '\\u' + h) },
)

export const jsonStringLiteral: fc.Arbitrary<string> = fc
  .array(stringPiece, { maxLength: 6 })
  .map((pieces) => '"' + pieces.join('') + '"')

const literal = fc.constantFrom('true', 'false', 'null')

/** A JSON value's text with whitespace between its tokens (none before or after it). */
export const jsonValueText: fc.Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    jsonNumberLiteral,
    jsonStringLiteral,
    tie('array'),
    tie('object'),
  ),
  array: fc
    .tuple(jsonWhitespace, fc.array(fc.tuple(tie('value'), jsonWhitespace, jsonWhitespace), { maxLength: 5 }))
    .map(([inner, items]) => (items.length === 0 ? '[' + inner + ']' : '[' + inner + joinItems(items) + ']')),
  object: fc
    .tuple(
      jsonWhitespace,
      fc.array(fc.tuple(jsonStringLiteral, jsonWhitespace, jsonWhitespace, tie('value'), jsonWhitespace, jsonWhitespace), {
        maxLength: 5,
      }),
    )
    .map(([inner, members]) =>
      members.length === 0
        ? '{' + inner + '}'
        : '{' +
          inner +
          joinItems(members.map(([key, ws1, ws2, value, ws3, ws4]) => [key + ws1 + ':' + ws2 + value, ws3, ws4] as const)) +
          '}',
    ),
})).value

function joinItems(items: ReadonlyArray<readonly [string, string, string]>): string {
  return items.map(([text, before, after], index) => (index === 0 ? '' : ',' + before) + text + after).join('')
}

/** A whole JSON document that is an object or array, with whitespace around it too. */
export const jsonContainerText: fc.Arbitrary<string> = fc
  .tuple(jsonWhitespace, jsonValueText, jsonWhitespace)
  .filter(([, value]) => value.startsWith('{') || value.startsWith('['))
  .map(([before, value, after]) => before + value + after)

/** Pretty-printed JSON as JSON.stringify writes it, from fast-check's own JSON values. */
export const prettyJsonContainer: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue())), fc.constantFrom(1, 2, 4, '\t'))
  .map(([value, indent]) => JSON.stringify(value, null, indent))

/** A JSON text with one character deleted, replaced or inserted: mostly invalid, sometimes not. */
export const mutatedJsonText: fc.Arbitrary<string> = fc
  .tuple(jsonContainerText, fc.nat(), fc.constantFrom('delete', 'replace', 'insert'), fc.constantFrom(...' \t\n"\\{}[],:0e.-atu'))
  .map(([text, at, how, char]) => {
    const i = text.length === 0 ? 0 : at % text.length
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1)
    if (how === 'replace') return text.slice(0, i) + char + text.slice(i + 1)
    return text.slice(0, i) + char + text.slice(i)
  })

/** The tokens of a JSON text, by a lexer independent of the one under test. */
export function jsonTokens(text: string): string[] {
  return text.match(/"(?:[^"\\]|\\[\s\S])*"|[{}[\],:]|[^\s{}[\],:"]+/g) ?? []
}

/** The text with its strings removed: what lies outside them. */
export function outsideStrings(text: string): string {
  return text.replace(/"(?:[^"\\]|\\[\s\S])*"/g, '')
}
