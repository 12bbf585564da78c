import { describe, expect, it } from 'vitest'
import { highlight, type TokenKind } from './highlight'

const kinds = (code: string, language: string, kind: TokenKind) =>
  highlight(code, language)
    .filter((token) => token.kind === kind)
    .map((token) => token.text)

describe('the preview highlighter', () => {
  const rust = [
    '//! Spare parts.',
    '#[derive(Debug, Clone)]',
    "pub struct SparePart<'a> {",
    "    pub name: &'a str, // the part's name",
    '}',
    'fn main() { let c = \'x\'; println!("{} {}", r#"raw "q""#, 42u32); }',
  ].join('\n')

  it('gives back the source exactly, in every language', () => {
    const samples: [string, string][] = [
      [rust, 'rust'],
      ['const a = `x${b}` // c\nexport type T = \'a\' | "b"', 'typescript'],
      ['<CrudPage config={x} />\n</div>', 'tsx'],
      ["CREATE TABLE spare_part (name VARCHAR(64) DEFAULT 'it''s'); -- note", 'sql'],
      ['[[menu]]\ncode = "sparePart" # seed\nsort = 1\nbuttons = ["add"]', 'toml'],
      ['whatever <b>', 'markdown'],
    ]
    for (const [code, language] of samples) {
      expect(
        highlight(code, language)
          .map((token) => token.text)
          .join(''),
      ).toBe(code)
    }
  })

  it('marks Rust comments, attributes, macros, keywords, strings and types; a lifetime is no string', () => {
    expect(kinds(rust, 'rust', 'comment')).toEqual(['//! Spare parts.', "// the part's name"])
    expect(kinds(rust, 'rust', 'attr')).toEqual(['#[derive(Debug, Clone)]', 'println!'])
    expect(kinds(rust, 'rust', 'keyword')).toEqual(['pub', 'struct', 'pub', 'fn', 'let'])
    expect(kinds(rust, 'rust', 'string')).toEqual(["'x'", '"{} {}"', 'r#"raw "q""#'])
    // Debug and Clone are inside the attribute.
    expect(kinds(rust, 'rust', 'type')).toEqual(['SparePart'])
    expect(kinds(rust, 'rust', 'number')).toEqual(['42u32'])
  })

  it('finds no keyword inside an identifier', () => {
    expect(kinds('const format = imports', 'typescript', 'keyword')).toEqual(['const'])
  })

  it('marks JSX tags in TSX, SQL keywords in any case and TOML tables and keys', () => {
    expect(kinds('return <CrudPage config={c} /></div>', 'tsx', 'tag')).toEqual([
      '<CrudPage',
      '</div',
    ])
    expect(kinds('create TABLE t (id BIGINT NOT NULL)', 'sql', 'keyword')).toEqual([
      'create',
      'TABLE',
      'BIGINT',
      'NOT',
      'NULL',
    ])
    const seed = '[[menu]]\ncode = "sparePart"'
    expect(kinds(seed, 'toml', 'attr')).toEqual(['[[menu]]'])
    expect(kinds(seed, 'toml', 'key')).toEqual(['code'])
    expect(kinds(seed, 'toml', 'string')).toEqual(['"sparePart"'])
  })
})
