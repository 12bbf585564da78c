/**
 * Syntax highlighting for the code generator's preview, by highlight.js (its core and only the
 * languages the generator writes: Rust, SQL, TypeScript/TSX, TOML). The answer is highlight.js's
 * HTML: the source escaped, wrapped in `<span class="hljs-…">`; colours are in index.css.
 */
import hljs from 'highlight.js/lib/core'
import ini from 'highlight.js/lib/languages/ini'
import rust from 'highlight.js/lib/languages/rust'
import sql from 'highlight.js/lib/languages/sql'
import typescript from 'highlight.js/lib/languages/typescript'

hljs.registerLanguage('rust', rust)
hljs.registerLanguage('sql', sql)
hljs.registerLanguage('typescript', typescript)
// highlight.js reads TOML with its INI grammar (it registers `toml` as an alias of it).
hljs.registerLanguage('ini', ini)

/** The generator's language names → highlight.js's. */
const grammar: Readonly<Record<string, string>> = {
  rust: 'rust',
  sql: 'sql',
  typescript: 'typescript',
  tsx: 'typescript',
  toml: 'ini',
}

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** `code` as highlighted HTML; a language the preview does not know comes back escaped, plain. */
export function highlightHtml(code: string, language: string): string {
  const name = grammar[language]
  if (!name) return escape(code)
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value
}
