/**
 * A small syntax highlighter for the code generator's preview: the five languages it writes
 * (Rust, SQL, TypeScript, TSX, TOML), tokenised by a few rules each into comments, strings,
 * keywords, types, numbers and attributes. Not a parser: enough to read generated files, and far
 * lighter than a general highlighter for a page few users open.
 */

export type TokenKind =
  'plain' | 'comment' | 'string' | 'keyword' | 'type' | 'number' | 'attr' | 'tag' | 'key'

export interface Token {
  kind: TokenKind
  text: string
}

type Rule = readonly [TokenKind, RegExp]

/** Sticky (matches only where the scan stands), so each rule is tried at the current position. */
const sticky = (source: string, flags = '') => new RegExp(source, `y${flags}`)
const words = (list: string) => sticky(`(?:${list.trim().split(/\s+/).join('|')})(?![\\w$])`)

const number = sticky(String.raw`\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?[a-z0-9]*`)
const identifier = sticky(String.raw`[A-Za-z_$][\w$]*`)
const typeName = sticky(String.raw`[A-Z][\w]*`)
const lineComment = sticky(String.raw`//[^\n]*`)
const blockComment = sticky(String.raw`/\*[\s\S]*?(?:\*/|$)`)
const doubleQuoted = sticky(String.raw`"(?:\\[\s\S]|[^"\\\n])*"?`)
const singleQuoted = sticky(String.raw`'(?:\\[\s\S]|[^'\\\n])*'?`)

const rust: readonly Rule[] = [
  ['comment', lineComment],
  ['comment', blockComment],
  ['string', sticky(String.raw`b?r(#*)"[\s\S]*?"\1`)],
  ['string', sticky(String.raw`b?"(?:\\[\s\S]|[^"\\])*"?`)],
  // A char literal, not a lifetime ('a): one character (or escape) and the closing quote.
  ['string', sticky(String.raw`b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^'\\\n])'`)],
  ['attr', sticky(String.raw`#!?\[[^\]\n]*\]?`)],
  ['attr', sticky(String.raw`[a-z_][\w]*!(?=[(\[{])`)],
  [
    'keyword',
    words(`as async await break const continue crate dyn else enum extern false fn for if impl in
      let loop match mod move mut pub ref return self Self static struct super trait true type
      unsafe use where while`),
  ],
  ['type', typeName],
  ['number', number],
]

const tsKeywords = words(`abstract as async await break case catch class const continue default
  delete do else enum export extends false finally for from function if implements import in
  instanceof interface let new null of private protected public readonly return satisfies static
  super switch this throw true try type typeof undefined var void while yield`)

const typescript: readonly Rule[] = [
  ['comment', lineComment],
  ['comment', blockComment],
  ['string', doubleQuoted],
  ['string', singleQuoted],
  ['string', sticky('`(?:\\\\[\\s\\S]|[^`\\\\])*`?')],
  ['keyword', tsKeywords],
  ['type', typeName],
  ['number', number],
]

const tsx: readonly Rule[] = [
  // A JSX tag's opening (`<CrudPage`, `</div`): after comments and strings, before the rest.
  ...typescript.slice(0, 5),
  ['tag', sticky(String.raw`<\/?[A-Za-z][\w.]*`)],
  ...typescript.slice(5),
]

const sql: readonly Rule[] = [
  ['comment', sticky(String.raw`--[^\n]*`)],
  ['comment', blockComment],
  ['string', sticky(String.raw`'(?:''|[^'])*'?`)],
  ['string', sticky(String.raw`"(?:""|[^"])*"?`)],
  [
    'keyword',
    new RegExp(
      `(?:${`add alter and as asc autoincrement bigint bigserial boolean by check constraint
      create date decimal default delete desc drop exists foreign from if index insert integer
      int into is key not null numeric on or primary references select set smallint table text
      timestamp unique update values varchar where`
        .trim()
        .split(/\s+/)
        .join('|')})(?![\\w$])`,
      'iy',
    ),
  ],
  ['number', number],
]

const toml: readonly Rule[] = [
  ['comment', sticky(String.raw`#[^\n]*`)],
  ['attr', sticky(String.raw`^[ \t]*\[\[?[^\]\n]*\]\]?`, 'm')],
  ['string', sticky(String.raw`"""[\s\S]*?(?:"""|$)`)],
  ['string', doubleQuoted],
  ['string', singleQuoted],
  ['key', sticky(String.raw`[A-Za-z0-9_-]+(?=[ \t]*=)`)],
  ['keyword', words('true false')],
  ['number', number],
]

const rulesOf: Readonly<Record<string, readonly Rule[]>> = {
  rust,
  rs: rust,
  typescript,
  ts: typescript,
  tsx,
  sql,
  toml,
}

/**
 * The tokens of `code` in `language` (an unknown language is one plain token). Joined, the
 * tokens' texts give back `code` exactly.
 */
export function highlight(code: string, language: string): Token[] {
  const rules = rulesOf[language.toLowerCase()]
  if (!rules) return code === '' ? [] : [{ kind: 'plain', text: code }]
  const tokens: Token[] = []
  const push = (kind: TokenKind, text: string) => {
    const last = tokens.at(-1)
    if (kind === 'plain' && last?.kind === 'plain') last.text += text
    else tokens.push({ kind, text })
  }
  let at = 0
  scan: while (at < code.length) {
    for (const [kind, pattern] of rules) {
      pattern.lastIndex = at
      const match = pattern.exec(code)
      if (match && match[0] !== '') {
        push(kind, match[0])
        at += match[0].length
        continue scan
      }
    }
    // Not a token: a whole identifier (so no keyword is found inside one), or one character.
    identifier.lastIndex = at
    const word = identifier.exec(code)
    const text = word ? word[0] : code[at]
    push('plain', text)
    at += text.length
  }
  return tokens
}
